/** A server this package launches, stops, and puts into the result. */
export interface LaunchSpec {
  kind: 'launch'
  /** Short name for logs and results: `vllm`, `sglang`, `llama.cpp`, or the command's base name. */
  name: string
  /** The executable: a name looked up on PATH, or a path. */
  command: string
  /** Arguments; every `{port}` is replaced by the port in use. */
  args: string[]
  /** Environment variables set on top of this process's own. Secret-named values are redacted in results. */
  env?: Record<string, string>
  /** Working directory of the server. Default: this process's. */
  cwd?: string
  /** TCP port. Default: a free port chosen at start (a given port must be free, see `startServer`). */
  port?: number
  /** Address the server listens on and is polled at. Default `127.0.0.1`. */
  host?: string
  /** Server root when it is not `http://<host>:<port>`; `{port}` is replaced. */
  baseUrl?: string
  /** URL that answers 2xx once the server is ready; `{port}` is replaced. Default: `<baseUrl>/health`, then `<baseUrl>/v1/models`. */
  readyUrl?: string
  /** Model name requests use. Default: the first model listed by `GET /v1/models`. */
  model?: string
  /** Bearer token for the readiness and facts requests. Default: the value of `--api-key` in `args`. Never written anywhere. */
  apiKey?: string
  /** How long start-up may take, in milliseconds (loading a large model takes minutes). Default 1200000 (20 minutes). */
  startTimeoutMs?: number
  /** After SIGTERM, how long the process group may take to exit before SIGKILL, in milliseconds. Default 10000. */
  stopGraceMs?: number
  /** Folder of the server log files. Default `.llm-bench/logs` under the working directory. */
  logDir?: string
}

/** A server that is already running: connected to, never stopped. */
export interface ConnectSpec {
  kind: 'connect'
  /** Server root, e.g. `http://127.0.0.1:8000` (a trailing `/v1` is stripped). */
  baseUrl: string
  /** Model name requests use. Default: the first model listed by `GET /v1/models`. */
  model?: string
  /** Bearer token for the readiness and facts requests. Never written anywhere. */
  apiKey?: string
  /**
   * How long to wait for the server to answer, in milliseconds. Default 30000. Without it the server
   * is taken to run already: a refused connection (nothing listens) fails after {@link REFUSED_FAIL_MS}.
   * Given, refusals are waited out too, as from a server still loading its model (vLLM binds its port
   * without listening until then).
   */
  readyTimeoutMs?: number
}

export type ServerSpec = LaunchSpec | ConnectSpec

/** Placeholder replaced by the port in `args`, `readyUrl` and `baseUrl`. */
export const PORT_PLACEHOLDER = '{port}'

/** Defaults of {@link LaunchSpec}. */
export const DEFAULT_START_TIMEOUT_MS = 20 * 60_000
export const DEFAULT_STOP_GRACE_MS = 10_000
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000
/** How long a server taken to run already (a `target`, or `connect()` without `readyTimeoutMs`) may refuse connections before the run fails, ms. */
export const REFUSED_FAIL_MS = 2_000
export const DEFAULT_LOG_DIR = '.llm-bench/logs'
