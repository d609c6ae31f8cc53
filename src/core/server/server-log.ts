import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs'
import path from 'node:path'
import { LineBuffer } from '../telemetry/line-buffer.ts'
import { redactText } from './redact.ts'

/**
 * A server's output, line by line, written to a file and kept in memory as a short tail. Every line
 * passes through {@link redactText} with the launch's secret values first: servers echo their
 * arguments at start-up (vLLM logs `non-default args: {... 'api_key': ...}`), and the file must not
 * hold a key.
 */
export class ServerLog {
  /** Absolute path of the log file. */
  readonly path: string
  readonly #secrets: readonly string[]
  readonly #file: WriteStream
  readonly #tail: string[] = []
  readonly #tailLines: number
  readonly #streams = new Map<string, LineBuffer>()
  #closed: Promise<void> | undefined

  constructor(filePath: string, secrets: readonly string[], tailLines = 50) {
    this.path = path.resolve(filePath)
    this.#secrets = secrets
    this.#tailLines = tailLines
    mkdirSync(path.dirname(this.path), { recursive: true })
    this.#file = createWriteStream(this.path, { flags: 'a' })
    // A full disk or a deleted folder must not crash the benchmark: the tail in memory remains.
    this.#file.on('error', () => {})
  }

  /** A file name that sorts by time and says which server it is, e.g. `vllm-41234-2026-11-29T16-10-00-123Z.log`. */
  static fileName(name: string, port: number, now = new Date()): string {
    const safe = name.replace(/[^A-Za-z0-9._-]+/g, '_')
    return `${safe}-${port}-${now.toISOString().replace(/[:.]/g, '-')}.log`
  }

  /** Appends a line of our own (the launch command, start and stop). */
  note(line: string): void {
    this.#line(`# ${line}`)
  }

  /** Appends output of one stream; a partial line waits for the rest. */
  write(stream: string, chunk: string): void {
    let lines = this.#streams.get(stream)
    if (lines === undefined) {
      lines = new LineBuffer()
      this.#streams.set(stream, lines)
    }
    for (const line of lines.push(chunk)) this.#line(line)
  }

  /** The last `count` lines (default all kept, at most the tail length given at construction). */
  tail(count = this.#tailLines): string[] {
    return this.#tail.slice(-count)
  }

  /** Writes pending partial lines and closes the file. Idempotent. */
  close(): Promise<void> {
    this.#closed ??= new Promise<void>((resolve) => {
      for (const lines of this.#streams.values()) for (const line of lines.flush()) this.#line(line)
      this.#file.end(() => resolve())
      this.#file.once('error', () => resolve())
    })
    return this.#closed
  }

  #line(raw: string): void {
    const line = redactText(raw, this.#secrets)
    this.#tail.push(line)
    if (this.#tail.length > this.#tailLines) this.#tail.shift()
    if (!this.#file.writableEnded) this.#file.write(`${line}\n`)
  }
}
