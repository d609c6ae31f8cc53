import { OptionsError } from './contract/errors.ts'
import { validateLoad, validateWarmupOptions } from './load/index.ts'
import { validateGoodputLimits } from './metrics/goodput.ts'
import { validateCostOptions } from './metrics/cost.ts'
import { checkServerMetricsOptions } from './server/metrics/index.ts'
import type { BenchmarkOptions } from './contract/types.ts'
import { isRecord } from './contract/is-record.ts'

const APIS = ['chat', 'completions']
const WORKLOAD_KINDS = ['synthetic', 'sharegpt', 'jsonl', 'prompts', 'trace']


function positiveFinite(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value > 0
}

/**
 * Checks every option of {@link BenchmarkOptions} before anything is sent, so a typo costs
 * milliseconds, not a warm-up against a production server. Throws {@link OptionsError}.
 */
export function validateOptions(options: unknown): asserts options is BenchmarkOptions {
  if (!isRecord(options)) {
    throw new OptionsError('options', 'expected an object', 'Pass `{ target, workload, load }` to runBenchmark().')
  }
  const { target, workload, load, warmup, seed, goodput, cost, serverMetrics } = options
  if (!isRecord(target)) {
    throw new OptionsError('target', 'missing', "Give the server to measure, e.g. `target: { baseUrl: 'http://127.0.0.1:8000' }` (start the built-in simulator with `npx vitest-llm-bench sim --port 8000`).")
  }
  if (typeof target.baseUrl !== 'string' || target.baseUrl === '') {
    throw new OptionsError('target.baseUrl', 'missing', "Set it to the server's root URL, e.g. 'http://127.0.0.1:8000'.")
  }
  let url: URL
  try {
    url = new URL(target.baseUrl)
  } catch {
    throw new OptionsError('target.baseUrl', `'${target.baseUrl}' is not a URL`, "Use a full URL with scheme, e.g. 'http://127.0.0.1:8000'.")
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OptionsError('target.baseUrl', `unsupported scheme '${url.protocol}'`, 'Use http:// or https://.')
  }
  if (target.api !== undefined && !APIS.includes(target.api as string)) {
    throw new OptionsError('target.api', `unknown API '${String(target.api)}'`, "Use 'chat' (/v1/chat/completions) or 'completions' (/v1/completions).")
  }
  if (target.model !== undefined && (typeof target.model !== 'string' || target.model === '')) {
    throw new OptionsError('target.model', 'must be a non-empty string', 'Give the served model name, or leave it out to use the first model of GET /v1/models.')
  }
  if (target.requestTimeoutMs !== undefined && !positiveFinite(target.requestTimeoutMs)) {
    throw new OptionsError('target.requestTimeoutMs', `must be a positive number of milliseconds, got ${String(target.requestTimeoutMs)}`, 'Leave it out for the default of 600000 (10 minutes).')
  }
  if (target.headers !== undefined && !isRecord(target.headers)) {
    throw new OptionsError('target.headers', 'must be an object of header names to string values', "e.g. `headers: { 'x-team': 'serving' }`.")
  }

  if (!isRecord(workload)) {
    throw new OptionsError('workload', 'missing', "Say what to send, e.g. `workload: { kind: 'synthetic', inputTokens: { mean: 128 }, outputTokens: { mean: 128 } }`.")
  }
  if (!WORKLOAD_KINDS.includes(workload.kind as string)) {
    throw new OptionsError('workload.kind', `unknown kind '${String(workload.kind)}'`, `Use one of ${WORKLOAD_KINDS.map((k) => `'${k}'`).join(', ')}.`)
  }

  if (!isRecord(load)) {
    throw new OptionsError('load', 'missing', 'Say how much load to apply, e.g. `load: { concurrency: 8, requests: 200 }` or `load: { rate: 10, requests: 200 }`.')
  }
  validateLoad(load, { trace: workload.kind === 'trace' })

  // The warm-up's own rule (0 means none), checked here before anything is sent.
  if (warmup !== undefined) validateWarmupOptions(warmup)
  if (seed !== undefined && !Number.isInteger(seed)) {
    throw new OptionsError('seed', `must be an integer, got ${String(seed)}`, 'e.g. `seed: 42`.')
  }
  if (goodput !== undefined) {
    if (!isRecord(goodput)) throw new OptionsError('goodput', 'must be an object', 'e.g. `goodput: { ttftMs: 500, tpotMs: 50 }`.')
    for (const key of Object.keys(goodput)) {
      if (!['ttftMs', 'tpotMs', 'e2eMs'].includes(key)) {
        throw new OptionsError(`goodput.${key}`, 'unknown limit', 'Use ttftMs, tpotMs or e2eMs (milliseconds).')
      }
    }
    // The metrics' own rule for the values (and for an empty object), checked here before anything is sent.
    validateGoodputLimits(goodput)
  }
  // The metrics' own rule, checked here before anything is sent.
  if (cost !== undefined) validateCostOptions(cost)
  checkServerMetricsOptions(serverMetrics)
}
