/**
 * Turns a stream of text chunks into complete lines. A pipe delivers whatever the writer flushed,
 * so one line can arrive in several chunks and one chunk can hold several lines; only complete
 * lines are handed out, the rest waits for the next chunk.
 */
export class LineBuffer {
  #pending = ''

  /** Appends a chunk and returns the lines it completed, without their `\n` (and `\r`). */
  push(chunk: string): string[] {
    const text = this.#pending + chunk
    const parts = text.split('\n')
    this.#pending = parts.pop() ?? ''
    return parts.map(stripCarriageReturn)
  }

  /** Returns the unterminated rest (a last line without `\n`), if any, and empties the buffer. */
  flush(): string[] {
    const rest = this.#pending
    this.#pending = ''
    return rest === '' ? [] : [stripCarriageReturn(rest)]
  }
}

function stripCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line
}
