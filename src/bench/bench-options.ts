import type { RegressionPolicy } from '../core/verdict/index.ts'
import type { ServerSpec } from '../core/server/index.ts'
import type { SloOptions } from '../core/slo/index.ts'
import type { BenchmarkOptions, TargetOptions } from '../core/contract/options.ts'
import type { SimulatorOptions } from '../sim/index.ts'
import type { TrialOptions } from './bench-trials.ts'

/** Default test timeout of a bench, milliseconds (here, not in bench-llm.ts, so the Bun and Deno adapters share it without importing Vitest). */
export const DEFAULT_BENCH_TIMEOUT_MS = 600_000

/** The built-in simulator, started in the bench's own process. */
export interface SimulatorSpec {
  kind: 'simulator'
  options: SimulatorOptions
}

/** Where a bench sends its load: a server to start, one to connect to, or the simulator. */
export type BenchServer = ServerSpec | SimulatorSpec

/** Options of `bench.llm(name, options)`. */
export interface BenchLlmOptions extends Omit<BenchmarkOptions, 'target' | 'signal' | 'onProgress'> {
  /**
   * The server to start or connect to (`vllm({...})`, `llamaCpp({...})`, `connect(url)`,
   * `simulator({...})`). Default: the plugin's server, else the built-in simulator.
   */
  server?: BenchServer
  /** Request options (api, model, headers, apiKey); `baseUrl` here connects like `connect(baseUrl)`. */
  target?: Partial<TargetOptions>
  /** Absolute limits, e.g. `{ ttftMs: { p99: 500 }, outputTokensPerSec: { min: 1500 } }`. */
  slo?: SloOptions
  /**
   * Limits against the stored baseline, e.g. `{ ttftMs: { p99: '+10%' }, outputTokensPerSec: '-5%' }`.
   * `false` neither reads nor writes a baseline. Default: the plugin's `tolerance`, else the
   * default policy (p50 and p99 TTFT and TPOT +10%, output tokens/s -5%).
   */
  baseline?: RegressionPolicy | false
  /** Time limit of one trial, milliseconds; the test's limit is this times the most trials it may run (`trials`) plus two. Default 600000 (10 minutes). */
  timeoutMs?: number
  /**
   * Empty the server's prefix cache before the bench (warm-up included), so it does not profit
   * from an earlier bench's prompts: vLLM `POST /reset_prefix_cache` (served with
   * `VLLM_SERVER_DEV_MODE=1`), else SGLang `POST /flush_cache`. A server with neither gets a
   * warning in the result, not a failure. Default false.
   */
  resetPrefixCache?: boolean
  /**
   * How many times to measure, and what an inconclusive verdict does: see {@link TrialOptions}.
   * Default `{ record: 5, max: 3, restartServer: 'record', onInconclusive: 'warn' }`: a baseline is
   * recorded from 5 trials; a compared run measures once, and again (up to 3) until every check passes.
   */
  trials?: TrialOptions
}

/** The built-in simulator as a bench's server (e.g. with a speed factor for what-if runs). */
export function simulator(options: SimulatorOptions = {}): SimulatorSpec {
  return { kind: 'simulator', options }
}
