import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { WorkloadError } from '../contract/errors.ts'
import { describeJsonError, jsonErrorPosition } from '../platform/runtime-json.ts'

/** What reading a dataset file found besides its content. */
export interface DatasetFileFacts {
  /** Hex sha256 of the whole file (records exactly which dataset a result came from). */
  sha256: string
  bytes: number
}

/** Chunk size for reading datasets (ShareGPT is ~650 MB: larger than a JS string may be). */
const CHUNK_BYTES = 1 << 20

function unreadable(path: string, error: unknown): WorkloadError {
  const code = (error as { code?: string }).code
  const what =
    code === 'ENOENT'
      ? "file not found. Check the path (in a bench a relative path resolves from the bench file's folder; in runBenchmark from the working directory, unless RunContext.baseDir says otherwise) or download the dataset first"
      : code === 'EISDIR'
        ? 'this is a directory, not a file. Point the path at the dataset file itself'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied. Make the file readable by this user'
          : `cannot be read (${(error as Error).message}). Check the path and the file`
  return new WorkloadError(what + '.', { path })
}

/** Streams the file's bytes to `onChunk` and returns its sha256. Errors name the path and what to do. */
export async function readDatasetChunks(
  path: string,
  onChunk: (chunk: Buffer) => void,
  chunkBytes = CHUNK_BYTES,
): Promise<DatasetFileFacts> {
  const hash = createHash('sha256')
  let bytes = 0
  const stream = createReadStream(path, { highWaterMark: chunkBytes })
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      hash.update(chunk)
      bytes += chunk.length
      onChunk(chunk)
    }
  } catch (error) {
    stream.destroy()
    if (error instanceof WorkloadError) throw error
    throw unreadable(path, error)
  }
  return { sha256: hash.digest('hex'), bytes }
}

/**
 * Calls `onLine` with each line (without its line break) and its 1-based number. Splits on bytes,
 * so a multi-byte character across two chunks stays intact.
 */
export async function readDatasetLines(
  path: string,
  onLine: (line: string, lineNumber: number) => void,
  chunkBytes = CHUNK_BYTES,
): Promise<DatasetFileFacts> {
  let pending: Buffer[] = []
  let lineNumber = 0
  const emit = (parts: Buffer[]): void => {
    lineNumber++
    let line = Buffer.concat(parts).toString('utf8')
    if (line.endsWith('\r')) line = line.slice(0, -1)
    if (lineNumber === 1 && line.charCodeAt(0) === 0xfeff) line = line.slice(1)
    onLine(line, lineNumber)
  }
  const facts = await readDatasetChunks(
    path,
    (chunk) => {
      let start = 0
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, start)) {
        pending.push(chunk.subarray(start, i))
        emit(pending)
        pending = []
        start = i + 1
      }
      if (start < chunk.length) pending.push(chunk.subarray(start))
    },
    chunkBytes,
  )
  if (pending.length > 0) emit(pending)
  return facts
}

/**
 * Calls `onElement` with each element of a top-level JSON array, parsed one at a time, with its
 * 0-based index and the 1-based line it starts on. The file never has to fit in one string.
 * Syntax errors throw a {@link WorkloadError} with the line.
 */
export async function readJsonArrayElements(
  path: string,
  onElement: (value: unknown, index: number, line: number) => void,
  chunkBytes = CHUNK_BYTES,
): Promise<DatasetFileFacts> {
  const scanner = new JsonArrayScanner(path, onElement)
  const facts = await readDatasetChunks(path, (chunk) => scanner.push(chunk), chunkBytes)
  scanner.end()
  return facts
}

const BEFORE = 0
const BETWEEN = 1
const ELEMENT = 2
const AFTER = 3

/**
 * Byte scanner that cuts a JSON array into its elements. Structural bytes are ASCII and never
 * occur inside a UTF-8 multi-byte sequence, so scanning bytes is safe; strings are skipped with
 * `indexOf`, which keeps a 650 MB file to a few seconds.
 */
class JsonArrayScanner {
  #state = BEFORE
  #depth = 0
  #inString = false
  #escape = false
  #expectValue = true
  #parts: Buffer[] = []
  #elementLine = 0
  #line = 1
  #index = 0
  #bom = 0
  readonly #path: string
  readonly #onElement: (value: unknown, index: number, line: number) => void

  constructor(path: string, onElement: (value: unknown, index: number, line: number) => void) {
    this.#path = path
    this.#onElement = onElement
  }

  #fail(message: string, line = this.#line): never {
    throw new WorkloadError(message, { path: this.#path, line })
  }

  push(chunk: Buffer): void {
    let elementStart = 0
    let i = 0
    const n = chunk.length
    while (i < n) {
      if (this.#state === ELEMENT) {
        if (this.#escape) {
          this.#escape = false
          i++
          continue
        }
        if (this.#inString) {
          const quote = chunk.indexOf(0x22, i)
          const backslash = chunk.indexOf(0x5c, i)
          if (backslash !== -1 && (quote === -1 || backslash < quote)) {
            this.#escape = true
            i = backslash + 1
          } else if (quote !== -1) {
            this.#inString = false
            i = quote + 1
          } else i = n
          continue
        }
        const b = chunk[i] as number
        if (b === 0x0a) this.#line++
        else if (b === 0x22) this.#inString = true
        else if (b === 0x7b || b === 0x5b) this.#depth++
        else if (b === 0x7d || b === 0x5d) {
          this.#depth--
          if (this.#depth === 0) {
            this.#finishElement(chunk, elementStart, i + 1)
          } else if (this.#depth < 0) {
            // `]` closing the array right after a scalar element.
            this.#finishElement(chunk, elementStart, i)
            this.#state = AFTER
          }
        } else if (b === 0x2c && this.#depth === 0) {
          this.#finishElement(chunk, elementStart, i)
          this.#expectValue = true
        }
        i++
        continue
      }
      const b = chunk[i] as number
      i++
      if (b === 0x0a) this.#line++
      if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) continue
      if (this.#state === BEFORE) {
        if (this.#bom < 3 && b === [0xef, 0xbb, 0xbf][this.#bom]) {
          this.#bom++
          continue
        }
        if (b !== 0x5b)
          this.#fail(
            'is not a JSON array (it must start with `[`). Use the ShareGPT JSON format: [{"id": ..., "conversations": [{"from": "human", "value": ...}, {"from": "gpt", "value": ...}]}, ...].',
          )
        this.#state = BETWEEN
        this.#expectValue = true
      } else if (this.#state === BETWEEN) {
        if (b === 0x5d && (!this.#expectValue || this.#index === 0)) this.#state = AFTER
        else if (b === 0x2c && !this.#expectValue) this.#expectValue = true
        else if (!this.#expectValue)
          this.#fail(
            `expected \`,\` or \`]\` after entry ${this.#index - 1}, found \`${String.fromCharCode(b)}\`. Fix the JSON syntax.`,
          )
        else if (b === 0x2c || b === 0x5d)
          this.#fail(`expected an entry, found \`${String.fromCharCode(b)}\`. Fix the JSON syntax (a stray comma?).`)
        else {
          this.#state = ELEMENT
          elementStart = i - 1
          this.#elementLine = this.#line
          this.#depth = b === 0x7b || b === 0x5b ? 1 : 0
          this.#inString = b === 0x22
        }
      } else
        this.#fail(`unexpected \`${String.fromCharCode(b)}\` after the closing \`]\`. Remove the trailing content.`)
    }
    if (this.#state === ELEMENT) this.#parts.push(chunk.subarray(elementStart))
  }

  /** Parses the element that ends at `end` (exclusive) in `chunk` and hands it on. */
  #finishElement(chunk: Buffer, start: number, end: number): void {
    const text = Buffer.concat([...this.#parts, chunk.subarray(start, end)]).toString('utf8')
    this.#parts = []
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      // Bun's JSON.parse names no position: runtime-json finds it on every runtime.
      const position = jsonErrorPosition(text, error)
      const offset = position ? position.line - 1 : 0
      this.#fail(
        `entry ${this.#index} is not valid JSON (${describeJsonError(text, error)}). Fix the JSON syntax.`,
        this.#elementLine + offset,
      )
    }
    this.#onElement(value, this.#index, this.#elementLine)
    this.#index++
    this.#state = BETWEEN
    this.#expectValue = false
  }

  end(): void {
    if (this.#state === BEFORE) this.#fail('is empty. Use a non-empty ShareGPT JSON file.', 1)
    if (this.#state !== AFTER)
      this.#fail('ends before the closing `]` of its array (truncated download?). Download the file again.')
  }
}

/** Throws a {@link WorkloadError} about the line being read, with the file's format appended. */
export type LineFailure = (problem: string) => never

/**
 * Calls `onObject` with each non-blank line of a JSONL file parsed as a JSON object, its 1-based
 * number and a `fail` that throws a {@link WorkloadError} naming the path, the line, the problem
 * and `format` (what a line must look like). A line that is not a JSON object fails that way.
 */
export async function readJsonObjectLines(
  path: string,
  format: string,
  onObject: (record: Record<string, unknown>, line: number, fail: LineFailure) => void,
): Promise<DatasetFileFacts> {
  return readDatasetLines(path, (text, line) => {
    if (text.trim() === '') return
    const fail: LineFailure = (problem) => {
      throw new WorkloadError(`${problem}. ${format}`, { path, line })
    }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      fail(`invalid JSON (${(error as Error).message})`)
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('not a JSON object')
    onObject(value as Record<string, unknown>, line, fail)
  })
}
