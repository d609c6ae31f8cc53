import { shownPath } from '../platform/shown-path.ts'
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
  return (
    value instanceof Error && typeof (value as { type?: unknown }).type === 'string' && value instanceof LlmBenchError
  )
}

/** Metric state cannot be used: an encoded histogram that does not decode, a snapshot of another format, or accumulators with different options merged. */
export class MetricsDataError extends LlmBenchError {
  override readonly type = 'metrics-data'
}

/** A baseline file cannot be read: invalid JSON, a wrong shape, or a newer schema. Never overwritten silently, not even under `-u`. */
export class BaselineFileError extends LlmBenchError {
  override readonly type = 'baseline-file'
  /** The baseline file at fault. */
  readonly path: string
  constructor(path: string, problem: string, options?: { cause?: unknown }) {
    super(
      `${path}: ${problem}. The baselines are in git: restore the committed file (\`git checkout -- ${path}\`), ` +
        'or fix it by hand (it is JSON). Only where no good copy exists, delete it and record anew with `vitest bench -u`.',
      options,
    )
    this.path = path
  }
}

/** A bench has no stored baseline and this run may not write one (under `CI=true` or update mode `none`). */
export class BaselineMissingError extends LlmBenchError {
  override readonly type = 'baseline-missing'
  /** Bench name (the entry key). */
  readonly benchName: string
  /** The baseline file that lacks the entry. */
  readonly path: string
  constructor(benchName: string, path: string) {
    super(`No baseline for '${benchName}' in ${path}. Run \`vitest bench -u\` locally and commit ${shownPath(path)}.`)
    this.benchName = benchName
    this.path = path
  }
}

/**
 * A stored baseline was measured on another machine, or with another workload or
 * load: comparing against it would be meaningless.
 */
export class BaselineMismatchError extends LlmBenchError {
  override readonly type = 'baseline-mismatch'
  /** Bench name (the entry key). */
  readonly benchName: string
  /** The baseline file holding the entry. */
  readonly path: string
  /** Machine changes, one per line, e.g. `GPU NVIDIA A100-SXM4-80GB -> NVIDIA H200` (a server upgrade is compared, not refused). */
  readonly environmentChanges: string[]
  /** Workload, load or target changes, e.g. `load.concurrency 16 -> 32`; empty when the config matches. */
  readonly configChanges: string[]
  constructor(benchName: string, path: string, environmentChanges: string[], configChanges: string[]) {
    const parts: string[] = []
    if (environmentChanges.length > 0) {
      parts.push(
        `The baseline for '${benchName}' in ${path} was recorded on another machine: ${environmentChanges.join('; ')}. ` +
          `Comparing across machines would be meaningless: run \`vitest bench -u\` on the new hardware and commit ${shownPath(path)} ` +
          '(each machine keeps its own entry in the file; the others stay as they are).',
      )
    }
    if (configChanges.length > 0) {
      parts.push(
        `The baseline for '${benchName}' in ${path} measured a different workload or load: ${configChanges.join('; ')}. ` +
          `Refresh it with \`vitest bench -u\` and commit ${shownPath(path)}.`,
      )
    }
    super(parts.join('\n'))
    this.benchName = benchName
    this.path = path
    this.environmentChanges = environmentChanges
    this.configChanges = configChanges
  }
}

/**
 * A server this package launched did not come up: the command was not found, the process exited
 * during start-up, its port was taken, or it was not ready within the start timeout. The message
 * ends with the last lines of the server's output (secrets redacted) and names the full log file.
 */
export class ServerStartError extends LlmBenchError {
  override readonly type = 'server-start'
  /** Absolute path of the server's log file, when one was written. */
  readonly logPath: string | undefined
  /** The last lines of the server's output, secrets redacted. */
  readonly logTail: string[]
  constructor(message: string, details: { logPath?: string; logTail?: string[]; cause?: unknown } = {}) {
    const tail = details.logTail ?? []
    const where = details.logPath ? ` Full log: ${details.logPath}` : ''
    const shown = tail.length > 0 ? `\n--- last ${tail.length} lines of server output ---\n${tail.join('\n')}` : ''
    super(`${message}${where}${shown}`, details.cause === undefined ? undefined : { cause: details.cause })
    this.logPath = details.logPath
    this.logTail = tail
  }
}

/** The command line could not be understood: unknown command, unknown flag or a bad flag value. The CLI exits with code 2. */
export class CliUsageError extends LlmBenchError {
  override readonly type = 'cli-usage'
  /** The command being parsed, when the command itself was recognised. */
  readonly command: string | undefined
  constructor(message: string, command?: string) {
    super(message)
    this.command = command
  }
}

/** A load worker thread of the multi-core mode (`workers > 1`) failed; the message carries the thread's own error. */
export class WorkerError extends LlmBenchError {
  override readonly type = 'worker'
  /** 0-based number of the thread that failed. */
  readonly thread: number
  /** The `type` of the thread's own error when it was an LlmBenchError (e.g. `options`), else undefined. */
  readonly causeType: string | undefined
  constructor(thread: number, threads: number, problem: string, causeType?: string) {
    super(
      `Load worker ${thread + 1} of ${threads} failed: ${problem} Run with workers: 1 to see the error where it happens, or report it with this message.`,
    )
    this.thread = thread
    this.causeType = causeType
  }
}
