import { OptionsError } from '../core/contract/errors.ts'
import { closestName } from '../core/platform/did-you-mean.ts'

/**
 * Faults injected per request. Each rate is the probability (0..1) that a request gets that
 * fault, drawn from the seeded fault stream in arrival order, so a rate of 1 is deterministic.
 * When several draws hit for one request, the first in this order applies: HTTP error, dropped
 * connection, error event, stall.
 */
export interface SimulatorFaultOptions {
  /** Share of requests answered with {@link httpErrorStatus} and a JSON error body before any streaming. Default 0. */
  httpErrorRate?: number
  /** Status of the injected HTTP errors. Default 429 (with a `retry-after: 1` header). */
  httpErrorStatus?: 429 | 500
  /** Share of requests whose connection is destroyed halfway through the output. Default 0. */
  dropConnectionRate?: number
  /** Share of requests that get a `data: {"error":…}` event halfway through, then the stream ends without `[DONE]`. Default 0. */
  errorEventRate?: number
  /** Share of requests that pause for {@link stallMs} halfway through the output (the sequence keeps its batch slot). Default 0. */
  stallRate?: number
  /** Length of a stall in milliseconds. Not scaled by `speedFactor`, so a stall still happens at speed 0. Default 1000. */
  stallMs?: number
}

/** Options of {@link startSimulator}. Every duration is in milliseconds, every length in tokens. */
export interface SimulatorOptions {
  /** TCP port; 0 picks a free one. Default 0. */
  port?: number
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string
  /** Model id served (listed by `GET /v1/models`, required to match a request's `model` when it sends one). Default `sim-model`. */
  model?: string
  /** Seed of output lengths, output text, request ids and faults. Default 0. */
  seed?: number
  /** What `GET /version` answers, as a server upgrade would change it (e.g. `0.11.0`). Default `sim-<package version>`. */
  version?: string
  /** Multiplies every modeled delay: 1 = nominal, 2 = twice as slow, 0 = no modeled delay (steps run back to back). Default 1. */
  speedFactor?: number
  /**
   * A slow leak for soak tests: every modeled delay grows by this share per hour since the simulator
   * started (0.05: 5 % slower after an hour, 10 % after two). Time can be compressed honestly by giving
   * the rate per real hour of the test: 5 % per simulated hour, with a simulated hour every minute, is 3.
   * Default 0.
   */
  slowdownPerHour?: number
  /** Most sequences decoded together (vLLM `--max-num-seqs`); further requests wait in a FIFO queue. Default 32. */
  maxRunningSequences?: number
  /** Fixed prefill cost of one request, ms. Default 8. */
  prefillBaseMs?: number
  /** Prefill cost per prompt token, ms. Default 0.05. */
  prefillMsPerToken?: number
  /** Fixed cost of one decode step, ms. A step lasts `decodeBaseMs + decodeMsPerSequence × sequences in the step`. Default 10. */
  decodeBaseMs?: number
  /** Decode step cost per sequence in the step, ms. Default 0.25. */
  decodeMsPerSequence?: number
  /**
   * `max_tokens` when a request sends none, tokens. Default 64.
   * Output length: with `ignore_eos: true` exactly `max_tokens` (finish_reason `length`); otherwise a
   * deterministic draw (seeded by the request's content and {@link seed}) uniform in
   * [ceil(max_tokens / 2), max_tokens], raised to `min_tokens` when given; finish_reason is `length`
   * when the draw equals `max_tokens`, else `stop`.
   */
  defaultMaxTokens?: number
  /** Context window, tokens: a request whose prompt plus `max_tokens` exceeds it gets a 400 (as vLLM). Also reported as `max_model_len`. Default 32768. */
  maxModelLen?: number
  /** Tokens per streamed chunk (speculative decoding emulation): each step emits this many tokens per sequence in one event. Default 1. */
  tokensPerChunk?: number
  /**
   * Reasoning tokens per reply (a thinking model, chat API): the first `reasoningTokens` output tokens
   * stream as `delta.reasoning_content` before the answer's `delta.content` (a chunk crossing the
   * boundary carries both), and the usage reports them in `completion_tokens_details.reasoning_tokens`.
   * They are part of the output length and take decode steps like any token, so the first answer
   * token comes `ceil((reasoningTokens + 1) / tokensPerChunk) − 1` steps after the first token. A
   * reply shorter than this is all reasoning. `/v1/completions` streams them as `text` (vLLM's
   * completions endpoint has no reasoning parser). Default 0.
   */
  reasoningTokens?: number
  /** Injected faults. Default none. */
  faults?: SimulatorFaultOptions
  /** Keep a per-request log of what the simulator did (`RunningSimulator.schedule`). Default false (memory stays flat). */
  recordSchedule?: boolean
  /** Require `Authorization: Bearer <apiKey>` on `/v1/*` (401 otherwise). Default: no check. */
  apiKey?: string
  /**
   * Answer like a buffering API layer instead of streaming token by token:
   * `json` ignores `stream: true` and returns one `chat.completion` / `text_completion` JSON at the end;
   * `burst` answers with SSE, but writes every event at once when the output is complete.
   * Default: stream live.
   */
  bufferMode?: 'json' | 'burst'
  /**
   * Model vLLM's automatic prefix caching (V1, simplified): prompts are cut into full blocks of
   * {@link blockTokens} tokens with chained hashes; at admission the longest run of leading
   * blocks already cached is a hit (at most up to the block before the prompt's last token, which
   * is always computed), and the prefill costs only the uncached tokens. Hits show in
   * `usage.prompt_tokens_details.cached_tokens` and in `GET /metrics`. Default false.
   */
  prefixCaching?: boolean
  /** KV-cache block size, tokens (vLLM `--block-size`). Default 16. */
  blockTokens?: number
  /**
   * KV-cache capacity, tokens: bounds the prefix cache (least recently freed blocks are evicted
   * first, blocks of running sequences never) and is the denominator of `vllm:kv_cache_usage_perc`.
   * It does not limit admission. Default 262144.
   */
  kvCacheTokens?: number
}

/** {@link SimulatorOptions} with every default filled in. */
export interface ResolvedSimulatorOptions {
  port: number
  host: string
  model: string
  seed: number
  version: string | undefined
  speedFactor: number
  slowdownPerHour: number
  maxRunningSequences: number
  prefillBaseMs: number
  prefillMsPerToken: number
  decodeBaseMs: number
  decodeMsPerSequence: number
  defaultMaxTokens: number
  maxModelLen: number
  tokensPerChunk: number
  reasoningTokens: number
  faults: Required<SimulatorFaultOptions>
  recordSchedule: boolean
  apiKey: string | undefined
  bufferMode: 'json' | 'burst' | undefined
  prefixCaching: boolean
  blockTokens: number
  kvCacheTokens: number
}

/** The defaults of {@link SimulatorOptions}. */
export const SIMULATOR_DEFAULTS = {
  port: 0,
  host: '127.0.0.1',
  model: 'sim-model',
  seed: 0,
  speedFactor: 1,
  slowdownPerHour: 0,
  maxRunningSequences: 32,
  prefillBaseMs: 8,
  prefillMsPerToken: 0.05,
  decodeBaseMs: 10,
  decodeMsPerSequence: 0.25,
  defaultMaxTokens: 64,
  maxModelLen: 32768,
  tokensPerChunk: 1,
  reasoningTokens: 0,
  prefixCaching: false,
  blockTokens: 16,
  kvCacheTokens: 262144,
  faults: {
    httpErrorRate: 0,
    httpErrorStatus: 429,
    dropConnectionRate: 0,
    errorEventRate: 0,
    stallRate: 0,
    stallMs: 1000,
  },
} as const satisfies Omit<ResolvedSimulatorOptions, 'recordSchedule' | 'apiKey' | 'bufferMode' | 'version'>

function nonNegative(option: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback
  if (!Number.isFinite(v) || v < 0)
    throw new OptionsError(
      option,
      `must be a finite number >= 0, got ${String(value)}`,
      'Pass a non-negative number or leave it out for the default.',
    )
  return v
}

function positiveInteger(option: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback
  if (!Number.isInteger(v) || v < 1)
    throw new OptionsError(
      option,
      `must be an integer >= 1, got ${String(value)}`,
      'Pass a whole number of at least 1 or leave it out for the default.',
    )
  return v
}

function nonNegativeInteger(option: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback
  if (!Number.isInteger(v) || v < 0)
    throw new OptionsError(
      option,
      `must be an integer >= 0, got ${String(value)}`,
      'Pass a whole number, or leave it out for the default.',
    )
  return v
}

function rate(option: string, value: number | undefined): number {
  const v = value ?? 0
  if (!Number.isFinite(v) || v < 0 || v > 1)
    throw new OptionsError(
      option,
      `must be a probability between 0 and 1, got ${String(value)}`,
      'Use 0 for never, 1 for every request.',
    )
  return v
}

const SIMULATOR_OPTION_KEYS = [
  'port',
  'host',
  'model',
  'seed',
  'version',
  'speedFactor',
  'slowdownPerHour',
  'maxRunningSequences',
  'prefillBaseMs',
  'prefillMsPerToken',
  'decodeBaseMs',
  'decodeMsPerSequence',
  'defaultMaxTokens',
  'maxModelLen',
  'tokensPerChunk',
  'reasoningTokens',
  'faults',
  'recordSchedule',
  'apiKey',
  'bufferMode',
  'prefixCaching',
  'blockTokens',
  'kvCacheTokens',
] as const satisfies ReadonlyArray<keyof SimulatorOptions>
const FAULT_OPTION_KEYS = [
  'httpErrorRate',
  'httpErrorStatus',
  'dropConnectionRate',
  'errorEventRate',
  'stallRate',
  'stallMs',
] as const satisfies ReadonlyArray<keyof SimulatorFaultOptions>

/** A name that is no option: a fault rate written beside `faults` instead of in it is the likeliest (nothing would fail). */
function unknownOption(key: string, known: readonly string[], prefix: string): OptionsError {
  const fault = prefix === '' && (FAULT_OPTION_KEYS as readonly string[]).includes(key)
  const guess = fault ? `faults.${key}` : closestName(key, known)
  return new OptionsError(
    `${prefix}${key}`,
    `is not a simulator option`,
    `${guess ? `Did you mean \`${prefix}${guess}\`? ` : ''}Options: ${known.join(', ')}.`,
  )
}

/** Fills in defaults and validates; throws {@link OptionsError} naming the bad option (an unknown one too). */
export function resolveSimulatorOptions(options: SimulatorOptions = {}): ResolvedSimulatorOptions {
  for (const key of Object.keys(options))
    if (!(SIMULATOR_OPTION_KEYS as readonly string[]).includes(key)) throw unknownOption(key, SIMULATOR_OPTION_KEYS, '')
  for (const key of Object.keys(options.faults ?? {}))
    if (!(FAULT_OPTION_KEYS as readonly string[]).includes(key)) throw unknownOption(key, FAULT_OPTION_KEYS, 'faults.')
  const d = SIMULATOR_DEFAULTS
  const port = options.port ?? d.port
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new OptionsError(
      'port',
      `must be an integer between 0 and 65535, got ${String(options.port)}`,
      'Use 0 to let the system pick a free port.',
    )
  const seed = options.seed ?? d.seed
  if (!Number.isFinite(seed))
    throw new OptionsError('seed', `must be a finite number, got ${String(options.seed)}`, 'Pass an integer such as 0.')
  const model = options.model ?? d.model
  if (model.length === 0) throw new OptionsError('model', 'must not be empty', 'Pass a model id such as `sim-model`.')
  const f = options.faults ?? {}
  const httpErrorStatus = f.httpErrorStatus ?? d.faults.httpErrorStatus
  if (httpErrorStatus !== 429 && httpErrorStatus !== 500)
    throw new OptionsError(
      'faults.httpErrorStatus',
      `must be 429 or 500, got ${String(httpErrorStatus)}`,
      'Pick 429 (rate limited) or 500 (server error).',
    )
  if (options.bufferMode !== undefined && options.bufferMode !== 'json' && options.bufferMode !== 'burst') {
    throw new OptionsError(
      'bufferMode',
      `must be 'json' or 'burst', got ${String(options.bufferMode)}`,
      'Leave it out to stream token by token.',
    )
  }
  const prefixCaching = options.prefixCaching ?? d.prefixCaching
  if (typeof prefixCaching !== 'boolean')
    throw new OptionsError(
      'prefixCaching',
      `must be true or false, got ${String(options.prefixCaching)}`,
      'Pass true to model prefix caching.',
    )
  const blockTokens = positiveInteger('blockTokens', options.blockTokens, d.blockTokens)
  const kvCacheTokens = positiveInteger('kvCacheTokens', options.kvCacheTokens, d.kvCacheTokens)
  if (kvCacheTokens < blockTokens) {
    throw new OptionsError(
      'kvCacheTokens',
      `must hold at least one block of blockTokens (${blockTokens}) tokens, got ${kvCacheTokens}`,
      'Raise kvCacheTokens or lower blockTokens.',
    )
  }
  return {
    port,
    host: options.host ?? d.host,
    model,
    seed,
    version: options.version,
    speedFactor: nonNegative('speedFactor', options.speedFactor, d.speedFactor),
    slowdownPerHour: nonNegative('slowdownPerHour', options.slowdownPerHour, d.slowdownPerHour),
    maxRunningSequences: positiveInteger('maxRunningSequences', options.maxRunningSequences, d.maxRunningSequences),
    prefillBaseMs: nonNegative('prefillBaseMs', options.prefillBaseMs, d.prefillBaseMs),
    prefillMsPerToken: nonNegative('prefillMsPerToken', options.prefillMsPerToken, d.prefillMsPerToken),
    decodeBaseMs: nonNegative('decodeBaseMs', options.decodeBaseMs, d.decodeBaseMs),
    decodeMsPerSequence: nonNegative('decodeMsPerSequence', options.decodeMsPerSequence, d.decodeMsPerSequence),
    defaultMaxTokens: positiveInteger('defaultMaxTokens', options.defaultMaxTokens, d.defaultMaxTokens),
    maxModelLen: positiveInteger('maxModelLen', options.maxModelLen, d.maxModelLen),
    tokensPerChunk: positiveInteger('tokensPerChunk', options.tokensPerChunk, d.tokensPerChunk),
    reasoningTokens: nonNegativeInteger('reasoningTokens', options.reasoningTokens, d.reasoningTokens),
    faults: {
      httpErrorRate: rate('faults.httpErrorRate', f.httpErrorRate),
      httpErrorStatus,
      dropConnectionRate: rate('faults.dropConnectionRate', f.dropConnectionRate),
      errorEventRate: rate('faults.errorEventRate', f.errorEventRate),
      stallRate: rate('faults.stallRate', f.stallRate),
      stallMs: nonNegative('faults.stallMs', f.stallMs, d.faults.stallMs),
    },
    recordSchedule: options.recordSchedule ?? false,
    apiKey: options.apiKey,
    bufferMode: options.bufferMode,
    prefixCaching,
    blockTokens,
    kvCacheTokens,
  }
}

/** A speed factor given after start, checked (a number >= 0), or the default when it is left out. */
export function resolveSpeedFactor(value: number): number {
  return nonNegative('speedFactor', value, SIMULATOR_DEFAULTS.speedFactor)
}

/**
 * The simulator's spec as a run's environment keeps it (`EnvironmentInfo.server.simulator`): every resolved
 * option that shapes what it serves, nested ones as `faults.stallRate`; the port (where it listens) left out,
 * the API key as `***`, options left unset absent.
 */
export function simulatorSpecOf(options: ResolvedSimulatorOptions): Record<string, string | number | boolean> {
  const { port: _port, faults, apiKey, ...rest } = options
  const spec: Record<string, string | number | boolean> = {}
  for (const [key, value] of Object.entries(rest)) if (value !== undefined) spec[key] = value
  for (const [key, value] of Object.entries(faults)) spec[`faults.${key}`] = value
  if (apiKey !== undefined) spec.apiKey = '***'
  return spec
}
