import path from 'node:path'
import { execa } from 'execa'
import { ServerStartError, ServerUnavailableError } from '../contract/errors.ts'
import { isSecretName } from '../platform/redact.ts'
import { getFreePort, isPortFree } from './free-port.ts'
import { isProcessGroupAlive, terminateProcessGroup } from './process-group.ts'
import { waitForServerReady } from '../client/readiness.ts'
import { redactArgs, redactEnv, redactText, secretValues } from './redact.ts'
import { normalizeBaseUrl, serverKey } from './server-key.ts'
import { ServerLog } from './server-log.ts'
import { groupLaunch, LAUNCHER_CANNOT_RUN, LAUNCHER_CANNOT_RUN_PREFIX } from './group-launch.ts'
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  REFUSED_FAIL_MS,
  DEFAULT_LOG_DIR,
  DEFAULT_START_TIMEOUT_MS,
  DEFAULT_STOP_GRACE_MS,
  PORT_PLACEHOLDER,
  type ConnectSpec,
  type LaunchSpec,
  type ServerSpec,
} from './server-spec.ts'
import { trackServer } from './shutdown-hooks.ts'
import { formatDurationMs } from '../platform/format-figure.ts'

/** How a server was launched, secrets redacted (goes into `EnvironmentInfo.server.launch`). */
export interface LaunchInfo {
  command: string
  /** Arguments as run (the chosen port substituted), secret values replaced by `***`. */
  args: string[]
  /** The environment variables the spec set (not the inherited ones), secret values replaced by `***`. */
  env?: Record<string, string>
}

/** A server ready to take requests. */
export interface RunningServer {
  /** {@link serverKey} of its spec. */
  readonly key: string
  /** `vllm`, `sglang`, `llama.cpp`, a command's name, or `connected`. */
  readonly name: string
  /** Server root, e.g. `http://127.0.0.1:41234`. */
  readonly baseUrl: string
  /** The model given or discovered from `/v1/models`; undefined when the server lists none. */
  readonly model: string | undefined
  /** Process id (and process group id) of a launched server; undefined for a connected one. */
  readonly pid: number | undefined
  /** Absolute path of the log file of a launched server. */
  readonly logPath: string | undefined
  /** The launch command, redacted; undefined for a connected server. */
  readonly launch: LaunchInfo | undefined
  /** False for a connected server: {@link stop} leaves it running. */
  readonly owned: boolean
  /** Bearer token for requests (from the spec or `--api-key`); not enumerable, so never serialised. */
  readonly apiKey: string | undefined
  /** True once a launched server's process has exited (on its own or stopped). */
  readonly exited: boolean
  /**
   * How a launched server ended when it ended on its own, not through {@link stop}: `exited with
   * code 1`, `was killed by SIGKILL`. Undefined while it runs, after {@link stop}, and for a connected server.
   */
  readonly exitedOnItsOwn: string | undefined
  /** The last lines of its output, secrets redacted (empty for a connected server). */
  logTail(lines?: number): string[]
  /** Stops a launched server and every process of its group; a no-op for a connected one. Idempotent. */
  stop(): Promise<void>
}

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /** Where the one-line progress messages go (log path, ready, stopped). Default: stderr. */
  print?: (line: string) => void
  /** Cancels the start; the server is stopped. */
  signal?: AbortSignal
  /** Interval of the "still starting" lines while a launched server gets ready, milliseconds. Default {@link START_PROGRESS_INTERVAL_MS}. */
  progressIntervalMs?: number
}

const TAIL_LINES = 50

/** Interval of the "still starting" lines while a launched server loads, milliseconds. */
export const START_PROGRESS_INTERVAL_MS = 15_000
/** Longest log line quoted in a "still starting" line, characters. */
const MAX_PROGRESS_LINE = 200

/**
 * Launches a server and resolves once it answers (see `waitForServerReady`), or connects to a running one.
 *
 * A launched server leads its own process group (spawned detached), its output goes to a log file
 * whose path is printed, and it is listed for the process hooks that stop it on SIGINT, SIGTERM and
 * exit. Rejects with {@link ServerStartError} (ending with the last 50 log lines, secrets redacted)
 * when the command is missing, a fixed port is taken, the process exits during start-up, the
 * server refuses the API key, or it is not ready within `startTimeoutMs`; the process group is
 * stopped first. A connect spec rejects with {@link ServerUnavailableError} instead.
 */
export async function startServer(spec: ServerSpec, options: StartServerOptions = {}): Promise<RunningServer> {
  return spec.kind === 'connect' ? connectServer(spec, options) : launchServer(spec, options)
}

/** Starts a server, runs `fn`, and stops the server whatever `fn` does (returns, throws). */
export async function withServer<T>(
  spec: ServerSpec,
  fn: (server: RunningServer) => Promise<T> | T,
  options: StartServerOptions = {},
): Promise<T> {
  const server = await startServer(spec, options)
  try {
    return await fn(server)
  } finally {
    await server.stop()
  }
}

async function connectServer(spec: ConnectSpec, options: StartServerOptions): Promise<RunningServer> {
  const baseUrl = normalizeBaseUrl(spec.baseUrl)
  const timeoutMs = spec.readyTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS
  // A refused connection means nothing listens, or a server still loading (vLLM binds its port without
  // listening until the model is loaded). Without a readyTimeoutMs the server is taken to run already,
  // so a refusal fails at once; a readyTimeoutMs given says "it may still be starting": wait it out.
  const refusedFailMs = spec.readyTimeoutMs === undefined ? REFUSED_FAIL_MS : undefined
  const outcome = await waitForServerReady({
    baseUrl,
    model: spec.model,
    apiKey: spec.apiKey,
    timeoutMs,
    signal: options.signal,
    ...(refusedFailMs !== undefined ? { refusedFailMs } : {}),
  })
  const shown = redactText(baseUrl, [])
  if (!outcome.ready) {
    const why =
      outcome.reason === 'unauthorized'
        ? 'it refused the API key: pass apiKey (or set OPENAI_API_KEY)'
        : outcome.reason === 'refused'
          ? `nothing listens there, the connection was refused for ${formatDurationMs(refusedFailMs ?? 0)} ` +
            `(last: ${outcome.lastAnswer}). Start the server first or fix the host and port; for a server that is ` +
            'still starting (vLLM and SGLang refuse connections while they load a model), wait for it with ' +
            'connect(baseUrl, { readyTimeoutMs: 600_000 })'
          : `not ready within ${formatDurationMs(timeoutMs)} (last: ${outcome.lastAnswer}): start the server first, check baseUrl, or wait longer with connect(baseUrl, { readyTimeoutMs })`
    throw new ServerUnavailableError(`Cannot use the server at ${shown}: ${why}.`)
  }
  return serverHandle({
    key: serverKey(spec),
    name: 'connected',
    baseUrl,
    model: outcome.model,
    pid: undefined,
    logPath: undefined,
    launch: undefined,
    owned: false,
    apiKey: spec.apiKey,
    exited: () => false,
    exitedOnItsOwn: () => undefined,
    logTail: () => [],
    stop: () => Promise.resolve(),
  })
}

async function launchServer(spec: LaunchSpec, options: StartServerOptions): Promise<RunningServer> {
  const print = options.print ?? ((line: string) => process.stderr.write(`${line}\n`))
  const host = spec.host ?? '127.0.0.1'
  const port = await choosePort(spec, host)
  const fill = (text: string): string => text.split(PORT_PLACEHOLDER).join(String(port))
  const args = spec.args.map(fill)
  const baseUrl = normalizeBaseUrl(
    spec.baseUrl ? fill(spec.baseUrl) : `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
  )
  const readyUrl = spec.readyUrl === undefined ? undefined : fill(spec.readyUrl)
  const apiKey = spec.apiKey ?? apiKeyFromArgs(args)
  const inheritedSecrets = Object.fromEntries(
    Object.entries(process.env).filter(([name, value]) => isSecretName(name) && (value?.length ?? 0) >= 8),
  )
  const secrets = [...secretValues(args, { ...inheritedSecrets, ...spec.env }), ...(apiKey ? [apiKey] : [])]
  const launch: LaunchInfo = { command: spec.command, args: redactArgs(args) }
  if (spec.env !== undefined && Object.keys(spec.env).length > 0) launch.env = redactEnv(spec.env)

  const logDir = path.resolve(spec.cwd ?? process.cwd(), spec.logDir ?? DEFAULT_LOG_DIR)
  const log = new ServerLog(path.join(logDir, ServerLog.fileName(spec.name, port)), secrets, TAIL_LINES)
  log.note(`${[launch.command, ...launch.args].join(' ')}`)
  if (launch.env)
    log.note(
      `env: ${Object.entries(launch.env)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
    )
  print(`vitest-llm-bench: starting ${spec.name} on port ${port}; log: ${log.path}`)

  const fail = async (message: string, cause?: unknown): Promise<never> => {
    await log.close()
    throw new ServerStartError(redactText(message, secrets), {
      logPath: log.path,
      logTail: log.tail(TAIL_LINES),
      cause,
    })
  }

  // Its own process group: one signal reaches its workers, and Ctrl-C in the terminal reaches
  // only us, so the hooks decide how it stops (see group-launch.ts for why not a new session).
  const grouped = groupLaunch(spec.command, args)
  const subprocess = execa(grouped.command, grouped.args, {
    env: spec.env,
    cwd: spec.cwd,
    detached: grouped.detached,
    cleanup: false,
    buffer: false,
    reject: false,
    stdin: 'ignore',
    encoding: 'utf8',
    forceKillAfterDelay: false,
  })
  subprocess.stdout?.setEncoding('utf8')
  subprocess.stderr?.setEncoding('utf8')
  subprocess.stdout?.on('data', (chunk: string) => log.write('stdout', chunk))
  subprocess.stderr?.on('data', (chunk: string) => log.write('stderr', chunk))
  let exitedAt: number | undefined
  let stopRequested = false
  let exitedOnItsOwn: string | undefined
  const exit = subprocess.then((result) => {
    exitedAt = performance.now()
    if (!stopRequested)
      exitedOnItsOwn = result.signal ? `was killed by ${result.signal}` : `exited with code ${result.exitCode ?? '?'}`
    return result
  })

  const pid = subprocess.pid
  if (pid === undefined) {
    const result = await exit
    const code = (result as { code?: string }).code
    const hint =
      code === 'ENOENT'
        ? `\`${spec.command}\` was not found: install it, or pass \`bin\` with its path`
        : result.shortMessage
    return fail(`Cannot start ${spec.name}: ${hint}.`, result)
  }

  let stopping: Promise<void> | undefined
  const graceMs = spec.stopGraceMs ?? DEFAULT_STOP_GRACE_MS
  const stop = (): Promise<void> => {
    // Runs up to its first await right away: a signal handler that cannot wait has sent SIGTERM.
    stopping ??= (async () => {
      stopRequested = exitedAt === undefined
      const outcome = isProcessGroupAlive(pid)
        ? await terminateProcessGroup(pid, { graceMs })
        : { forced: false, survived: false }
      await exit
      untrack()
      const how =
        exitedOnItsOwn !== undefined
          ? `had already ended on its own (${exitedOnItsOwn})`
          : outcome.forced
            ? `killed (SIGKILL) after ignoring SIGTERM for ${formatDurationMs(graceMs)}`
            : 'stopped'
      log.note(`${how}${outcome.survived ? '; a process of its group survived SIGKILL' : ''}`)
      await log.close()
      print(`vitest-llm-bench: ${spec.name} on port ${port} ${how}`)
    })()
    return stopping
  }
  const untrack = trackServer({ pgid: pid, stop })

  const started = performance.now()
  const startTimeoutMs = spec.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS
  const abort = new AbortController()
  void exit.then(() => abort.abort())
  const onCancel = (): void => abort.abort()
  options.signal?.addEventListener('abort', onCancel, { once: true })
  // A start can take minutes (vLLM loading a model): say that it is still going, and what the
  // server last logged, so neither a terminal nor a CI log sits silent.
  const progress = setInterval(() => {
    const last = log.tail(1)[0]
    print(
      `vitest-llm-bench: ${spec.name} still starting after ${formatDurationMs(performance.now() - started)}${last ? `; its last log line: ${last.length > MAX_PROGRESS_LINE ? `${last.slice(0, MAX_PROGRESS_LINE)}…` : last}` : ''}`,
    )
  }, options.progressIntervalMs ?? START_PROGRESS_INTERVAL_MS)
  progress.unref?.()
  const outcome = await waitForServerReady({
    baseUrl,
    readyUrl,
    model: spec.model,
    apiKey,
    timeoutMs: startTimeoutMs,
    signal: abort.signal,
  }).finally(() => clearInterval(progress))
  options.signal?.removeEventListener('abort', onCancel)

  if (!outcome.ready || exitedAt !== undefined) {
    const result = exitedAt !== undefined ? await exit : undefined
    await stop()
    if (result !== undefined) {
      if (
        result.exitCode === LAUNCHER_CANNOT_RUN &&
        log.tail(TAIL_LINES).some((line) => line.startsWith(LAUNCHER_CANNOT_RUN_PREFIX))
      ) {
        return fail(
          `Cannot start ${spec.name}: \`${spec.command}\` was not found: install it, or pass \`bin\` with its path (${log.tail(TAIL_LINES).find((line) => line.startsWith(LAUNCHER_CANNOT_RUN_PREFIX)) ?? ''}).`,
        )
      }
      const status = result.signal ? `was killed by ${result.signal}` : `exited with code ${result.exitCode ?? '?'}`
      return fail(`${spec.name} ${status} during start-up. Its output below says why.`)
    }
    if (!outcome.ready && outcome.reason === 'unauthorized') {
      return fail(`${spec.name} refused the API key at /v1/models: pass \`apiKey\` matching the server's --api-key.`)
    }
    if (options.signal?.aborted) return fail(`Start of ${spec.name} was cancelled.`, options.signal.reason)
    return fail(
      `${spec.name} was not ready within ${formatDurationMs(startTimeoutMs)} (last: ${outcome.ready ? 'ready' : outcome.lastAnswer}). ` +
        'Raise startTimeoutMs if loading the model takes longer, or read the log.',
    )
  }
  log.note(`ready after ${formatDurationMs(performance.now() - started)} at ${baseUrl}`)
  print(
    `vitest-llm-bench: ${spec.name} ready at ${baseUrl}${outcome.model ? ` (model ${outcome.model})` : ''} after ${formatDurationMs(performance.now() - started)}`,
  )

  return serverHandle({
    key: serverKey(spec),
    name: spec.name,
    baseUrl,
    model: outcome.model,
    pid,
    logPath: log.path,
    launch,
    owned: true,
    apiKey,
    exited: () => exitedAt !== undefined,
    exitedOnItsOwn: () => exitedOnItsOwn,
    logTail: (lines) => log.tail(lines),
    stop,
  })
}

async function choosePort(spec: LaunchSpec, host: string): Promise<number> {
  const probeHost = host === '0.0.0.0' ? '127.0.0.1' : host
  const fixed = spec.port ?? fixedPortOf(spec)
  if (fixed === undefined) return getFreePort(probeHost)
  if (!(await isPortFree(fixed, probeHost))) {
    throw new ServerStartError(
      `Cannot start ${spec.name}: port ${fixed} on ${probeHost} is already in use (a server left running?). ` +
        'Stop that process, leave `port` unset to get a free one, or connect to it with `baseUrl`.',
    )
  }
  return fixed
}

/** The port of a `readyUrl` or `baseUrl` written without `{port}`. */
function fixedPortOf(spec: LaunchSpec): number | undefined {
  const url = spec.readyUrl ?? spec.baseUrl
  if (url === undefined || url.includes(PORT_PLACEHOLDER) || spec.args.some((arg) => arg.includes(PORT_PLACEHOLDER)))
    return undefined
  try {
    const parsed = new URL(url)
    return Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80))
  } catch {
    return undefined
  }
}

/** The value of `--api-key` (vLLM, SGLang, llama.cpp), if given. */
function apiKeyFromArgs(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg.startsWith('--api-key=')) return arg.slice('--api-key='.length)
    if (arg === '--api-key') return args[i + 1]
  }
  return undefined
}

interface HandleParts extends Omit<RunningServer, 'exited' | 'exitedOnItsOwn' | 'apiKey'> {
  apiKey: string | undefined
  exited: () => boolean
  exitedOnItsOwn: () => string | undefined
}

function serverHandle(parts: HandleParts): RunningServer {
  const { apiKey, exited, exitedOnItsOwn, ...rest } = parts
  const handle = { ...rest } as RunningServer
  Object.defineProperty(handle, 'apiKey', { value: apiKey, enumerable: false })
  Object.defineProperty(handle, 'exited', { get: exited, enumerable: true })
  Object.defineProperty(handle, 'exitedOnItsOwn', { get: exitedOnItsOwn, enumerable: true })
  return handle
}
