import {
  asParsedPolicy,
  defaultRegressionPolicy,
  parseOnInconclusive,
  type OnInconclusive,
  type PairLimits,
  type ParsedRegressionPolicy,
  type RegressionPolicy,
} from '../core/verdict/index.ts'
import { OptionsError } from '../core/contract/errors.ts'
import { isRecord } from '../core/contract/is-record.ts'
import { rejectUnknownKeys } from '../core/contract/known-keys.ts'
import type { BenchLlmOptions, BenchServer } from './bench-options.ts'
import { planBench, type BenchPlan } from './plan-bench.ts'
import { armNeedOf, placeArms, type ArmsPlacement } from './arms-placement.ts'

/**
 * Options of `bench.llm.compare(name, options)`: the same load on two or more servers, measured
 * side by side in counterbalanced pairs (each trial on a freshly started server where the bench
 * launches it), every variant judged against the control on the pairs' ratios.
 */
export interface BenchCompareOptions extends Omit<
  BenchLlmOptions,
  'server' | 'slo' | 'baseline' | 'trials' | 'resetPrefixCache'
> {
  /** The arms, by label: `{ default: llamaCpp({...}), 'ub 1': llamaCpp({ args: ['-ub', '1'] }) }`. At least two. */
  variants: Record<string, BenchServer>
  /** The label every other variant is judged against. */
  control: string
  /** The gates and how far a variant may move them, as `bench.llm`'s `baseline`. Default: `DEFAULT_REGRESSION_POLICY` (TTFT and TPOT p50 +10 %, output tok/s -5 %); for embeddings and rerank `DEFAULT_INPUTS_REGRESSION_POLICY` (E2E p50 +10 %, tokens/s -5 %). */
  baseline?: RegressionPolicy
  /** Pairs to measure: `min` before any verdict (default 3, at least 2), then more while a gate is undecided, up to `max` (default 6; arms together 10). */
  pairs?: { min?: number; max?: number }
  /** Milliseconds all pairs may take; another pair starts only if one as long as the longest so far fits. Default 1800000 (30 min). */
  budgetMs?: number
  /** What an undecided gate does to the bench: `warn` (passes, prints why), `fail`, or `pass`. Default `warn`. */
  onInconclusive?: OnInconclusive
  /** Test timeout, milliseconds. Default: `budgetMs` plus 10 minutes (for the last pair). */
  timeoutMs?: number
  /**
   * How a pair's arms share the machine. `together`: every arm's server is started (in the pair's
   * order) and kept up, and the load is run in slices, one arm loaded at a time (A B B A A B B A), so
   * that the host's speed phases hit every arm alike; `apart`: one arm at a time, each on a freshly
   * started server. Default `auto`: together where every arm's load can be sliced and the launched
   * servers fit beside each other (llama-server: model files against free memory; vLLM and SGLang:
   * each arm's `--gpu-memory-utilization` or `--mem-fraction-static`, summing under 1), else apart.
   */
  arms?: 'together' | 'apart' | 'auto'
  /** Arms together: the slices each arm's load is cut into in every pair (its requests or duration shared out). Default 4. */
  slices?: number
}

/** Pairs, budget and what an undecided gate does, when the options leave them out. */
export const COMPARE_DEFAULTS = {
  minPairs: 3,
  maxPairs: 6,
  /**
   * Arms together: a pair is both servers up for one pass of the load, with no restart between its arms, so more
   * pairs fit the same time. Measured on llama-server (docs/verdicts.md, "Arms together"): an unchanged server
   * passed 16 of 30 gates at 6 pairs at most, 16 of 18 at 10 (5-10 pairs taken).
   */
  maxPairsTogether: 10,
  budgetMs: 1_800_000,
  arms: 'auto',
  slices: 4,
} as const
/** Added to the budget for the test's own timeout: the last pair may start just inside it. */
const LAST_PAIR_MS = 600_000

/** One arm, planned. */
export interface CompareArm {
  label: string
  server: BenchServer
  /** `bench.llm`'s plan of the shared options on this arm's server. */
  plan: BenchPlan
}

/** The options of `bench.llm.compare`, parsed once, at collection. */
export interface ComparePlan {
  /** The control first, then the variants in the order given. */
  arms: CompareArm[]
  control: string
  policy: ParsedRegressionPolicy
  limits: PairLimits
  onInconclusive: OnInconclusive
  /** The test's timeout, milliseconds. */
  timeoutMs: number
  /** Whether the arms of a pair are up together, and why. */
  placement: ArmsPlacement
  /** Arms together: slices of each arm's load per pair. */
  slices: number
}

const OWN_KEYS = ['variants', 'control', 'baseline', 'pairs', 'budgetMs', 'onInconclusive', 'arms', 'slices'] as const
const SHARED_KEYS = [
  'target',
  'workload',
  'load',
  'warmup',
  'seed',
  'recordRequests',
  'goodput',
  'cost',
  'serverMetrics',
  'workers',
  'timeoutMs',
] as const
const KEYS: readonly string[] = [...OWN_KEYS, ...SHARED_KEYS]

function count(value: unknown, option: string, fallback: number, least: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < least) {
    throw new OptionsError(
      option,
      `must be an integer >= ${least}, got ${JSON.stringify(value)}`,
      option === 'slices'
        ? `e.g. \`slices: ${COMPARE_DEFAULTS.slices}\`.`
        : `e.g. \`pairs: { min: ${COMPARE_DEFAULTS.minPairs}, max: ${COMPARE_DEFAULTS.maxPairs} }\`.`,
    )
  }
  return value
}

/**
 * Validates `bench.llm.compare`'s options at collection: its own (variants, control, pairs, budget,
 * gates) and, for every variant, the shared options as `bench.llm` would check them on that server.
 *
 * @throws {OptionsError} naming the option and how to fix it.
 */
export function planCompare(name: unknown, options: unknown): ComparePlan {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new OptionsError(
      'name',
      `must be a non-empty string, got ${JSON.stringify(name)}`,
      "Call bench.llm.compare('what is compared', { variants, control, workload, load }).",
    )
  }
  if (!isRecord(options))
    throw new OptionsError(
      'options',
      `bench.llm.compare('${name}', options) needs an options object`,
      'Pass `{ variants, control, workload, load }` at least.',
    )
  rejectUnknownKeys(options, KEYS, '', `bench.llm.compare('${name}')`)
  const variants = options.variants
  if (!isRecord(variants) || Object.keys(variants).length < 2) {
    throw new OptionsError(
      'variants',
      'must name two servers at least',
      "e.g. `variants: { default: llamaCpp({ model }), 'ub 1': llamaCpp({ model, args: ['-ub', '1'] }) }`.",
    )
  }
  const labels = Object.keys(variants)
  const control = options.control
  if (typeof control !== 'string' || !labels.includes(control)) {
    throw new OptionsError(
      'control',
      `must be one of the variants' labels (${labels.map((l) => `'${l}'`).join(', ')}), got ${JSON.stringify(control)}`,
      'The control is what every other variant is judged against.',
    )
  }
  const shared = Object.fromEntries(
    SHARED_KEYS.filter((key) => options[key] !== undefined).map((key) => [key, options[key]]),
  )
  const order = [control, ...labels.filter((label) => label !== control)]
  const arms = order.map((label) => {
    const server = variants[label] as BenchServer
    try {
      return { label, server, plan: planBench(name, { ...shared, server, baseline: false }) }
    } catch (error) {
      if (error instanceof OptionsError && error.option === 'server') {
        throw new OptionsError(
          `variants['${label}']`,
          'is not a server spec',
          'Use vllm({ model }), sglang(...), llamaCpp(...), command(...), connect(url) or simulator({...}).',
        )
      }
      throw error
    }
  })
  const pairs = options.pairs
  if (pairs !== undefined && !isRecord(pairs))
    throw new OptionsError('pairs', 'must be an object', 'e.g. `pairs: { min: 3, max: 6 }`.')
  for (const key of Object.keys(pairs ?? {}))
    if (key !== 'min' && key !== 'max')
      throw new OptionsError(`pairs.${key}`, 'is not a pairs option', 'Options: min, max.')
  const min = count(pairs?.min, 'pairs.min', COMPARE_DEFAULTS.minPairs, 2)
  const budgetMs = options.budgetMs ?? COMPARE_DEFAULTS.budgetMs
  if (typeof budgetMs !== 'number' || !(budgetMs > 0))
    throw new OptionsError(
      'budgetMs',
      `must be a positive number of milliseconds, got ${JSON.stringify(budgetMs)}`,
      'e.g. `budgetMs: 20 * 60_000`.',
    )
  const onInconclusive = parseOnInconclusive(options.onInconclusive, 'onInconclusive', "onInconclusive: 'fail'")
  const policy = asParsedPolicy(
    (options.baseline as RegressionPolicy | undefined) ?? defaultRegressionPolicy(options.target),
    'baseline',
  )
  const timeoutMs = typeof options.timeoutMs === 'number' ? options.timeoutMs : budgetMs + LAST_PAIR_MS
  const asked = options.arms ?? COMPARE_DEFAULTS.arms
  if (asked !== 'together' && asked !== 'apart' && asked !== 'auto')
    throw new OptionsError(
      'arms',
      `must be 'together', 'apart' or 'auto', got ${JSON.stringify(asked)}`,
      "Leave it out for 'auto': together where both servers fit.",
    )
  const slices = count(options.slices, 'slices', COMPARE_DEFAULTS.slices, 1)
  const placement = placeArms(
    asked,
    arms.map((arm) => armNeedOf(arm.label, arm.server, arm.plan.run)),
  )
  if (placement.mode === 'together') checkSlices(arms[0]?.plan.run, slices)
  const maxDefault = placement.mode === 'together' ? COMPARE_DEFAULTS.maxPairsTogether : COMPARE_DEFAULTS.maxPairs
  const max = count(pairs?.max, 'pairs.max', Math.max(min, maxDefault), min)
  return {
    arms,
    control,
    policy,
    limits: { min, max, budgetMs },
    onInconclusive,
    timeoutMs,
    placement,
    slices,
  }
}

/** Every slice of an arm's load must send something. */
function checkSlices(run: BenchPlan['run'] | undefined, slices: number): void {
  const requests = run?.load.requests
  if (requests !== undefined && requests < slices)
    throw new OptionsError(
      'slices',
      `${slices} slices cannot share ${requests} requests`,
      `Use at most ${requests} slices, or send more requests (a slice of fewer than 10 says little).`,
    )
}
