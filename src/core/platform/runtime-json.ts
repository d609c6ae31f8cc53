/**
 * Where a JSON text is broken, on every runtime. V8 (Node, Deno) names the position in most
 * `JSON.parse` messages ("... in JSON at position 7 (line 2 column 3)"); JavaScriptCore (Bun) never
 * does ("JSON Parse error: Expected '}'"). Dataset and baseline errors point at a line, so where the
 * message lacks it the position is found by scanning the text.
 */

/** Where a JSON text stops being valid: 0-based character offset, 1-based line and column. */
export interface JsonErrorPosition {
  offset: number
  line: number
  column: number
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r'])
const LITERALS = ['true', 'false', 'null']
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y
/** Deeper nesting than this is given up on (the scan is recursive); no real dataset comes close. */
const MAX_DEPTH = 2_000

class Stop {
  readonly offset: number
  constructor(offset: number) {
    this.offset = offset
  }
}

/** A small recursive-descent JSON recogniser: throws {@link Stop} at the first offending character. */
class JsonScanner {
  private readonly text: string
  private i = 0

  constructor(text: string) {
    this.text = text
  }

  scanDocument(): void {
    this.skip()
    this.value(0)
    this.skip()
    if (this.i < this.text.length) throw new Stop(this.i)
  }

  private skip(): void {
    while (this.i < this.text.length && WHITESPACE.has(this.text[this.i] as string)) this.i++
  }

  private value(depth: number): void {
    if (depth > MAX_DEPTH) throw new Stop(this.i)
    const c = this.text[this.i]
    if (c === '{') this.object(depth)
    else if (c === '[') this.array(depth)
    else if (c === '"') this.string()
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) this.number()
    else this.literal()
  }

  private object(depth: number): void {
    this.i++
    this.skip()
    if (this.text[this.i] === '}') {
      this.i++
      return
    }
    for (;;) {
      if (this.text[this.i] !== '"') throw new Stop(this.i)
      this.string()
      this.skip()
      if (this.text[this.i] !== ':') throw new Stop(this.i)
      this.i++
      this.skip()
      this.value(depth + 1)
      this.skip()
      const c = this.text[this.i]
      this.i++
      if (c === '}') return
      if (c !== ',') throw new Stop(this.i - 1)
      this.skip()
    }
  }

  private array(depth: number): void {
    this.i++
    this.skip()
    if (this.text[this.i] === ']') {
      this.i++
      return
    }
    for (;;) {
      this.value(depth + 1)
      this.skip()
      const c = this.text[this.i]
      this.i++
      if (c === ']') return
      if (c !== ',') throw new Stop(this.i - 1)
      this.skip()
    }
  }

  private string(): void {
    this.i++
    for (;;) {
      const code = this.text.charCodeAt(this.i)
      if (code === 0x22) break
      // Unescaped control characters (raw tabs, newlines) are not allowed inside JSON strings; NaN is the end of the text.
      if (Number.isNaN(code) || code < 0x20) throw new Stop(this.i)
      if (code === 0x5c) {
        ESCAPE.lastIndex = this.i
        if (ESCAPE.exec(this.text) === null) throw new Stop(this.i)
        this.i = ESCAPE.lastIndex
      } else this.i++
    }
    this.i++
  }

  private number(): void {
    NUMBER.lastIndex = this.i
    if (NUMBER.exec(this.text) === null) throw new Stop(this.i)
    this.i = NUMBER.lastIndex
  }

  private literal(): void {
    for (const word of LITERALS) {
      if (this.text.startsWith(word, this.i)) {
        this.i += word.length
        return
      }
    }
    throw new Stop(this.i)
  }
}

function positionAt(text: string, offset: number): JsonErrorPosition {
  const clamped = Math.max(0, Math.min(offset, text.length))
  const before = text.slice(0, clamped)
  const lineStart = before.lastIndexOf('\n') + 1
  return { offset: clamped, line: before.split('\n').length, column: clamped - lineStart + 1 }
}

/**
 * Where `text` is not valid JSON, given the error `JSON.parse(text)` threw: the runtime's own
 * position when its message names one, else the first offending character found by scanning.
 * Undefined when the scan finds the text valid (the error came from elsewhere).
 */
export function jsonErrorPosition(text: string, error: unknown): JsonErrorPosition | undefined {
  const message = error instanceof Error ? error.message : String(error)
  const stated = /position (\d+)/.exec(message)
  if (stated) return positionAt(text, Number(stated[1]))
  try {
    new JsonScanner(text).scanDocument()
  } catch (stop) {
    if (stop instanceof Stop) return positionAt(text, stop.offset)
    throw stop
  }
  return undefined
}

/**
 * The `JSON.parse` error's message with its position, worded the same on every runtime:
 * V8's message as it is when it names the position, else the runtime's message followed by
 * `in JSON at position N (line L column C)`.
 */
export function describeJsonError(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  if (/position \d+/.test(message)) return message
  const position = jsonErrorPosition(text, error)
  if (position === undefined) return message
  return `${message} in JSON at position ${position.offset} (line ${position.line} column ${position.column})`
}
