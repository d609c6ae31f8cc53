import { OptionsError } from '../contract/errors.ts'
import { rejectUnknownKeys } from '../contract/known-keys.ts'
import { PORT_PLACEHOLDER, type ConnectSpec, type LaunchSpec } from './server-spec.ts'

/** Options every preset shares. */
export interface PresetOptions {
  /** Extra arguments appended to the preset's own. */
  args?: string[]
  /** Environment variables set on top of this process's own (e.g. `CUDA_VISIBLE_DEVICES`, `HF_TOKEN`). */
  env?: Record<string, string>
  /** TCP port. Default: a free port chosen at start. */
  port?: number
  /** The executable, a name on PATH or a path. Default per preset. */
  bin?: string
  /** Bearer token for readiness and facts requests. Default: the value of `--api-key` in `args`. */
  apiKey?: string
  /** Working directory of the server. */
  cwd?: string
  /** Start-up limit, ms. Default 1200000 (20 minutes). */
  startTimeoutMs?: number
  /** SIGTERM-to-SIGKILL grace, ms. Default 10000. */
  stopGraceMs?: number
  /** Folder of the log files. Default `.llm-bench/logs`. */
  logDir?: string
}

const HOST = '127.0.0.1'
const PRESET_KEYS = [
  'args',
  'env',
  'port',
  'bin',
  'apiKey',
  'cwd',
  'startTimeoutMs',
  'stopGraceMs',
  'logDir',
] as const satisfies ReadonlyArray<keyof PresetOptions>

/**
 * `vllm serve <model> --host 127.0.0.1 --port <port> ...args`. The name requests use is read from
 * `GET /v1/models` (the model, or `--served-model-name` when given).
 */
export function vllm(
  options: PresetOptions & { /** Hugging Face id or local path given to `vllm serve`. */ model: string },
): LaunchSpec {
  rejectUnknownKeys(options, [...PRESET_KEYS, 'model'], '', 'vllm()')
  const { model, ...rest } = options
  return launch(
    'vllm',
    rest.bin ?? 'vllm',
    ['serve', model, '--host', HOST, '--port', PORT_PLACEHOLDER, ...(rest.args ?? [])],
    rest,
  )
}

/** `python3 -m sglang.launch_server --model-path <model> --host 127.0.0.1 --port <port> ...args`. */
export function sglang(options: PresetOptions & { /** Hugging Face id or local path. */ model: string }): LaunchSpec {
  rejectUnknownKeys(options, [...PRESET_KEYS, 'model'], '', 'sglang()')
  const { model, ...rest } = options
  return launch(
    'sglang',
    rest.bin ?? 'python3',
    [
      '-m',
      'sglang.launch_server',
      '--model-path',
      model,
      '--host',
      HOST,
      '--port',
      PORT_PLACEHOLDER,
      ...(rest.args ?? []),
    ],
    rest,
  )
}

/** `llama-server -m <modelPath> --host 127.0.0.1 --port <port> ...args`. */
export function llamaCpp(options: PresetOptions & { /** Path of the GGUF file. */ modelPath: string }): LaunchSpec {
  rejectUnknownKeys(options, [...PRESET_KEYS, 'modelPath'], '', 'llamaCpp()')
  const { modelPath, ...rest } = options
  const args = rest.args ?? []
  // `--metrics` serves /metrics, which the bench scrapes for queue, slot and token counters.
  const metrics = args.includes('--metrics') ? [] : ['--metrics']
  return launch(
    'llama.cpp',
    rest.bin ?? 'llama-server',
    ['-m', modelPath, '--host', HOST, '--port', PORT_PLACEHOLDER, ...metrics, ...args],
    rest,
  )
}

/**
 * Any other server: `argv[0]` is the executable. Put `{port}` in the arguments and in `readyUrl`
 * to have a free port chosen, or give a fixed port in `readyUrl`.
 */
/** Where `command()` waits for readiness when no `readyUrl` is given. */
const DEFAULT_COMMAND_READY_URL = `http://127.0.0.1:${PORT_PLACEHOLDER}/health`

export function command(
  argv: readonly string[],
  options: Omit<PresetOptions, 'args' | 'bin'> & {
    /** Model name requests use. Default: the first model listed by `GET /v1/models`. */
    model?: string
    /**
     * URL answering 2xx once ready, e.g. `http://127.0.0.1:{port}/health`. Its origin is the server
     * root unless `baseUrl` is given. Default `http://127.0.0.1:{port}/health` (the command must
     * then take the port from `{port}` in its arguments).
     */
    readyUrl?: string
    /** Server root, when it differs from `readyUrl`'s origin. */
    baseUrl?: string
    /** Name in logs and results. Default: the executable's base name. */
    name?: string
  } = {},
): LaunchSpec {
  const [bin, ...args] = argv
  if (bin === undefined)
    throw new TypeError(
      'command() needs at least the executable: command(["my-server", "--port", "{port}"], { readyUrl })',
    )
  const known = [
    ...PRESET_KEYS.filter((key) => key !== 'args' && key !== 'bin'),
    'model',
    'readyUrl',
    'baseUrl',
    'name',
  ]
  rejectUnknownKeys(options, known, '', 'command()')
  const { readyUrl = DEFAULT_COMMAND_READY_URL, baseUrl, name, ...rest } = options
  if (readyUrl === DEFAULT_COMMAND_READY_URL && !args.some((arg) => arg.includes(PORT_PLACEHOLDER))) {
    throw new OptionsError(
      'command',
      `command(${JSON.stringify([...argv])}) has no \`{port}\` in its arguments and no \`readyUrl\``,
      "Pass the port as '{port}' (e.g. ['my-server', '--port', '{port}']), or give `{ readyUrl: 'http://127.0.0.1:8000/health' }`.",
    )
  }
  const spec = launch(name ?? bin.split(/[\\/]/).pop() ?? bin, bin, args, rest)
  spec.readyUrl = readyUrl
  spec.baseUrl = baseUrl ?? originOf(readyUrl)
  return spec
}

/** A server that is already running at `baseUrl`: used as is, never stopped. */
export function connect(baseUrl: string, options: Omit<ConnectSpec, 'kind' | 'baseUrl'> = {}): ConnectSpec {
  return { kind: 'connect', baseUrl, ...options }
}

function launch(name: string, bin: string, args: string[], options: PresetOptions & { model?: string }): LaunchSpec {
  const spec: LaunchSpec = { kind: 'launch', name, command: bin, args }
  if (options.env !== undefined) spec.env = { ...options.env }
  if (options.port !== undefined) spec.port = options.port
  if (options.model !== undefined) spec.model = options.model
  if (options.apiKey !== undefined) spec.apiKey = options.apiKey
  if (options.cwd !== undefined) spec.cwd = options.cwd
  if (options.startTimeoutMs !== undefined) spec.startTimeoutMs = options.startTimeoutMs
  if (options.stopGraceMs !== undefined) spec.stopGraceMs = options.stopGraceMs
  if (options.logDir !== undefined) spec.logDir = options.logDir
  return spec
}

function originOf(url: string): string {
  const match = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]+)/i.exec(url)
  if (!match) throw new TypeError(`readyUrl must be an absolute http(s) URL, got ${url}`)
  return match[1]!
}
