import { OptionsError } from '../contract/errors.ts'
import { isRecord } from '../contract/is-record.ts'
import { rejectUnknownKeys } from '../contract/known-keys.ts'
import type { BenchmarkOptions, TargetOptions } from '../contract/options.ts'
import { planTarget, type PlannedTarget } from '../client/target.ts'
import { planRun, type RunPlan } from './run-plan.ts'
import { canonicalConfig } from './canonical-config.ts'
import { API_CHOICES, isApiKind } from '../contract/api-kinds.ts'

/** Every key of {@link TargetOptions}. */
export const TARGET_KEYS = [
  'baseUrl',
  'model',
  'api',
  'apiKey',
  'headers',
  'requestTimeoutMs',
  'stallTimeoutMs',
  'continuousUsageStats',
] as const satisfies ReadonlyArray<keyof TargetOptions>

function positiveFinite(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value > 0
}

/**
 * What a result's `config` says of the options a run was planned from: the options as given, less `signal` and
 * `onProgress`, with the workload and load as the run applies them (every default written out). The run adds the
 * target's URL, model and API it found, and redacts it where the result is written.
 */
export type RunConfig = Readonly<Record<string, unknown>>

/** A benchmark with its options parsed once: what {@link runBenchmark} runs. No raw option travels with it. */
export interface BenchmarkPlan {
  /** The target with its defaults; the model is discovered when the run starts if not given. */
  readonly target: PlannedTarget
  /** Everything else the run needs. */
  readonly run: RunPlan
  /** What the result's `config` echoes. */
  readonly config: RunConfig
}

/** The {@link RunConfig} of a run planned from `options`. */
export function runConfigOf(options: Omit<BenchmarkOptions, 'signal' | 'onProgress'>): RunConfig {
  const { signal: _signal, onProgress: _progress, ...given } = options as BenchmarkOptions
  const { workload, load } = canonicalConfig({ workload: given.workload, load: given.load })
  return { ...given, workload, load }
}

/** Checks `target` (a URL with http(s), a known API, a model name, a timeout, headers) and applies its defaults. */
export function checkTarget(target: unknown): PlannedTarget {
  if (!isRecord(target)) {
    throw new OptionsError(
      'target',
      'missing',
      "Give the server to measure, e.g. `target: { baseUrl: 'http://127.0.0.1:8000' }` (start the built-in simulator with `npx vitest-llm-bench sim --port 8000`).",
    )
  }
  rejectUnknownKeys(target, TARGET_KEYS, 'target')
  if (typeof target.baseUrl !== 'string' || target.baseUrl === '') {
    throw new OptionsError(
      'target.baseUrl',
      'missing',
      "Set it to the server's root URL, e.g. 'http://127.0.0.1:8000'.",
    )
  }
  let url: URL
  try {
    url = new URL(target.baseUrl)
  } catch {
    throw new OptionsError(
      'target.baseUrl',
      `'${target.baseUrl}' is not a URL`,
      "Use a full URL with scheme, e.g. 'http://127.0.0.1:8000'.",
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OptionsError('target.baseUrl', `unsupported scheme '${url.protocol}'`, 'Use http:// or https://.')
  }
  if (target.api !== undefined && !isApiKind(target.api)) {
    throw new OptionsError('target.api', `unknown API '${String(target.api)}'`, `Use ${API_CHOICES}.`)
  }
  if (target.model !== undefined && (typeof target.model !== 'string' || target.model === '')) {
    throw new OptionsError(
      'target.model',
      'must be a non-empty string',
      'Give the served model name, or leave it out to use the first model of GET /v1/models.',
    )
  }
  if (target.requestTimeoutMs !== undefined && !positiveFinite(target.requestTimeoutMs)) {
    throw new OptionsError(
      'target.requestTimeoutMs',
      `must be a positive number of milliseconds, got ${String(target.requestTimeoutMs)}`,
      'Leave it out for the default of 600000 (10 minutes).',
    )
  }
  if (target.stallTimeoutMs !== undefined && !positiveFinite(target.stallTimeoutMs)) {
    throw new OptionsError(
      'target.stallTimeoutMs',
      `must be a positive number of milliseconds, got ${String(target.stallTimeoutMs)}`,
      'Leave it out for the default of 120000 (2 minutes).',
    )
  }
  if (target.headers !== undefined && !isRecord(target.headers)) {
    throw new OptionsError(
      'target.headers',
      'must be an object of header names to string values',
      "e.g. `headers: { 'x-team': 'serving' }`.",
    )
  }

  return planTarget(target as unknown as TargetOptions)
}

/**
 * Parses {@link BenchmarkOptions} once into a {@link BenchmarkPlan}: every option checked, every
 * default applied. A typo costs milliseconds, not a warm-up against a production server.
 * @throws {OptionsError} naming the first wrong option and what to give instead.
 */
export function resolveBenchmark(options: unknown): BenchmarkPlan {
  if (!isRecord(options)) {
    throw new OptionsError('options', 'expected an object', 'Pass `{ target, workload, load }` to runBenchmark().')
  }
  const target = checkTarget(options.target)
  const run = planRun(options as unknown as BenchmarkOptions)
  return { target, run, config: runConfigOf(options as unknown as BenchmarkOptions) }
}

/** Checks every option of {@link BenchmarkOptions} (see {@link resolveBenchmark}). Throws {@link OptionsError}. */
export function validateOptions(options: unknown): asserts options is BenchmarkOptions {
  resolveBenchmark(options)
}
