/**
 * Every error this package throws extends {@link LlmBenchError}. Each has a literal `type`
 * so callers can switch on it without `instanceof` across module copies, and a message that
 * says what to do next.
 */
export class LlmBenchError extends Error {
  readonly type: string = 'llm-bench'
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = new.target.name
  }
}

/** A benchmark option is missing or invalid. Thrown before any request is sent. */
export class OptionsError extends LlmBenchError {
  override readonly type = 'options'
  /** Dotted path of the offending option, e.g. `load.rate`. */
  readonly option: string
  constructor(option: string, problem: string, fix: string) {
    super(`Invalid option \`${option}\`: ${problem}. ${fix}`)
    this.option = option
  }
}

/** A dataset or workload file cannot be used. Thrown before any request is sent. */
export class WorkloadError extends LlmBenchError {
  override readonly type = 'workload'
  /** The file at fault, when there is one. */
  readonly path: string | undefined
  /** 1-based line number within {@link path}, when known. */
  readonly line: number | undefined
  constructor(message: string, where: { path?: string; line?: number } = {}) {
    const at = where.path ? `${where.path}${where.line !== undefined ? `:${where.line}` : ''}: ` : ''
    super(`${at}${message}`)
    this.path = where.path
    this.line = where.line
  }
}

/** The target server could not be reached or is not ready. */
export class ServerUnavailableError extends LlmBenchError {
  override readonly type = 'server-unavailable'
}

/** A guard that works across duplicated module instances. */
export function isLlmBenchError(value: unknown): value is LlmBenchError {
  return value instanceof Error && typeof (value as { type?: unknown }).type === 'string' && value instanceof LlmBenchError
}
