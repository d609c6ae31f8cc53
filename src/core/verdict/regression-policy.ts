import { OptionsError } from '../contract/errors.ts'
import type { LatencyMetric, ThroughputMetric } from '../baseline/baseline-entry.ts'
import { GATEABLE_LATENCIES, GATEABLE_THROUGHPUTS, type OptionPerMetric } from '../contract/metric-catalog.ts'
import { isRecord } from '../contract/is-record.ts'
import { isApiKind, takesInputs } from '../contract/api-kinds.ts'

/** Statistics of a latency distribution a regression check can compare. */
export const LATENCY_STATISTICS = ['p50', 'p90', 'p95', 'p99', 'p999', 'mean'] as const
export type LatencyStatistic = (typeof LATENCY_STATISTICS)[number]

/** Allowed increase of a latency statistic: `'+10%'`, or a fraction (`0.1`). */
export type LatencyTolerance = `+${number}%` | number

/** Allowed decrease of a throughput: `'-5%'`, or a fraction (`0.05`). */
export type ThroughputTolerance = `-${number}%` | number

/** Tolerances for one latency metric, per statistic, e.g. `{ p50: '+5%', p99: '+10%' }`. */
export type LatencyPolicy = Partial<Record<LatencyStatistic, LatencyTolerance>>

/** Tolerances per gateable latency (`METRIC_CATALOG`), e.g. `ttftMs: { p50: '+10%' }`. */
type LatencyGates = OptionPerMetric<LatencyMetric, LatencyPolicy>

/** Tolerances per gateable throughput (run level), e.g. `outputTokensPerSec: '-5%'`. */
type ThroughputGates = OptionPerMetric<ThroughputMetric, ThroughputTolerance>

/**
 * What counts as a regression against the stored baseline (the `baseline` option of `bench.llm`).
 * Only the metrics and statistics named are checked. Each metric `METRIC_CATALOG` marks gateable is a
 * key: a latency takes tolerances per statistic, a throughput one tolerance.
 *
 * @example { ttftMs: { p99: '+10%' }, outputTokensPerSec: '-5%' }
 */
export interface RegressionPolicy extends LatencyGates, ThroughputGates {
  /** Level of the confidence intervals, 0.5 to 0.999. Default 0.95. */
  confidence?: number
  /**
   * Relative standard error assumed for a run-level throughput when the run gives no per-window
   * series to estimate it from (fewer than 10 windows, no recorded requests). Default 0.02 (2 %).
   */
  assumedThroughputNoise?: number
  /**
   * Smallest relative standard error used for a throughput even when the windows suggest less:
   * runs differ by more than the noise inside one run (clock boost, placement, neighbours).
   * Default 0.01 (1 %).
   */
  throughputNoiseFloor?: number
  /**
   * How far a stored baseline's figures are assumed to move from one session of the machine to the next (the
   * standard deviation of ln(figure)) until 3 sessions are stored; then their own spread is used. Default 0.12
   * (about 13 %, from unchanged llama-server runs on a 2-core host: docs/verdicts.md, "Between sessions"). 0 trusts
   * one recording's trials alone.
   */
  assumedSessionSpread?: number
}

/** One latency check of a parsed policy. */
export interface LatencyRule {
  metric: LatencyMetric
  statistic: LatencyStatistic
  /** Allowed increase as a fraction (0.1 for '+10%'). */
  tolerance: number
}

/** One throughput check of a parsed policy. */
export interface ThroughputRule {
  metric: ThroughputMetric
  /** Allowed decrease as a fraction (0.05 for '-5%'). */
  tolerance: number
}

/**
 * The brand of a parsed policy: set (not enumerable, so JSON and equality ignore it) by
 * {@link parseRegressionPolicy} and by `restoreParsedPolicy` on a policy read back from a file it wrote.
 */
export const PARSED_POLICY: unique symbol = Symbol.for('vitest-llm-bench.parsed-regression-policy')

/**
 * A validated {@link RegressionPolicy} with every default filled in, branded: the verdict takes no
 * other, so a policy is parsed once, where the bench's options are, and never again on the way.
 */
export interface ParsedRegressionPolicy {
  readonly [PARSED_POLICY]: true
  latency: LatencyRule[]
  throughput: ThroughputRule[]
  confidence: number
  assumedThroughputNoise: number
  throughputNoiseFloor: number
  assumedSessionSpread: number
}

export const DEFAULT_CONFIDENCE = 0.95
export const DEFAULT_ASSUMED_THROUGHPUT_NOISE = 0.02
export const DEFAULT_THROUGHPUT_NOISE_FLOOR = 0.01
export const DEFAULT_ASSUMED_SESSION_SPREAD = 0.12

/**
 * The gates of a bench that asks for a baseline without tolerances (and of `bench.llm.compare` and `ab`):
 * TTFT and TPOT may get 10 % slower at p50, output throughput 5 % lower. Tails are shown, not gated: a p99
 * of one run moved 64 % between fresh llama-server starts and ~39 % over three vLLM runs, so a relative p99
 * between runs rarely decides; an absolute p99 SLO, judged on its bound within the run, does.
 */
export const DEFAULT_REGRESSION_POLICY: RegressionPolicy = {
  ttftMs: { p50: '+10%' },
  tpotMs: { p50: '+10%' },
  outputTokensPerSec: '-5%',
}

/**
 * The gates of the `embeddings` and `rerank` APIs, which have no TTFT, TPOT or output tokens: end-to-end
 * latency may get 10 % slower at p50, tokens read per second (`totalTokensPerSec`, all input) 5 % lower.
 */
export const DEFAULT_INPUTS_REGRESSION_POLICY: RegressionPolicy = {
  e2eMs: { p50: '+10%' },
  totalTokensPerSec: '-5%',
}

/** The default gates for a bench whose target (options or a result's config) is `target`: by its `api` (none: chat). */
export function defaultRegressionPolicy(target: unknown): RegressionPolicy {
  const api = isRecord(target) ? target.api : undefined
  return isApiKind(api) && takesInputs(api) ? DEFAULT_INPUTS_REGRESSION_POLICY : DEFAULT_REGRESSION_POLICY
}

const SETTINGS = ['confidence', 'assumedThroughputNoise', 'throughputNoiseFloor', 'assumedSessionSpread'] as const
const VALID_KEYS: readonly string[] = [...GATEABLE_LATENCIES, ...GATEABLE_THROUGHPUTS, ...SETTINGS]

function show(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : String(value)
}

const PERCENT = /^([+-])(\d+(?:\.\d+)?|\.\d+)%$/

/**
 * Parses a tolerance: `'+10%'` (latency) or `'-5%'` (throughput), or a non-negative fraction.
 *
 * @param sign `+` for an allowed increase (latency), `-` for an allowed decrease (throughput).
 * @throws {OptionsError} naming `option` for anything else (`'10'`, `'+x%'`, `'-10%'` on a latency).
 */
export function parseTolerance(value: unknown, sign: '+' | '-', option: string): number {
  const example = sign === '+' ? "'+10%' or 0.1" : "'-5%' or 0.05"
  const meaning = sign === '+' ? 'an allowed increase' : 'an allowed decrease'
  let fraction: number | undefined
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) {
      throw new OptionsError(
        option,
        `${show(value)} is not a tolerance (a fraction must be finite and >= 0)`,
        `Write ${meaning} as ${example}.`,
      )
    }
    fraction = value
  } else if (typeof value === 'string') {
    const match = PERCENT.exec(value.trim())
    if (!match) {
      throw new OptionsError(option, `${show(value)} is not a tolerance`, `Write ${meaning} as ${example}.`)
    }
    if (match[1] !== sign) {
      const kind =
        sign === '+' ? 'A latency tolerance is an allowed increase' : 'A throughput tolerance is an allowed decrease'
      throw new OptionsError(option, `${show(value)} has the wrong sign`, `${kind}: write ${example}.`)
    }
    fraction = Number(match[2]) / 100
  } else {
    throw new OptionsError(option, `${show(value)} is not a tolerance`, `Write ${meaning} as ${example}.`)
  }
  if (sign === '-' && fraction >= 1) {
    throw new OptionsError(
      option,
      `${show(value)} allows throughput to drop to zero or below`,
      `Use a decrease below 100 %, e.g. ${example}.`,
    )
  }
  return fraction
}

function parseFraction(
  value: unknown,
  option: string,
  min: number,
  max: number,
  fallback: number,
  example: string,
): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new OptionsError(
      option,
      `${show(value)} is out of range`,
      `Use a number from ${min} to ${max}, e.g. ${example}.`,
    )
  }
  return value
}

/**
 * Validates a {@link RegressionPolicy} and fills in the defaults. Call it before running a bench
 * so a typo fails at once, not after minutes of load.
 *
 * @param optionPath Prefix of the option names in errors. Default `baseline`.
 * @throws {OptionsError} naming the option, e.g. `baseline.ttftMs.p98`, with the valid choices.
 */
export function parseRegressionPolicy(
  policy: RegressionPolicy,
  optionPath: string = 'baseline',
): ParsedRegressionPolicy {
  if (!isRecord(policy)) {
    throw new OptionsError(
      optionPath,
      `${show(policy)} is not an object`,
      "Give tolerances per metric, e.g. { ttftMs: { p99: '+10%' }, outputTokensPerSec: '-5%' }.",
    )
  }
  const parsed: Omit<ParsedRegressionPolicy, typeof PARSED_POLICY> = {
    latency: [],
    throughput: [],
    confidence: parseFraction(policy.confidence, `${optionPath}.confidence`, 0.5, 0.999, DEFAULT_CONFIDENCE, '0.95'),
    assumedThroughputNoise: parseFraction(
      policy.assumedThroughputNoise,
      `${optionPath}.assumedThroughputNoise`,
      0,
      1,
      DEFAULT_ASSUMED_THROUGHPUT_NOISE,
      '0.02',
    ),
    throughputNoiseFloor: parseFraction(
      policy.throughputNoiseFloor,
      `${optionPath}.throughputNoiseFloor`,
      0,
      1,
      DEFAULT_THROUGHPUT_NOISE_FLOOR,
      '0.01',
    ),
    assumedSessionSpread: parseFraction(
      policy.assumedSessionSpread,
      `${optionPath}.assumedSessionSpread`,
      0,
      1,
      DEFAULT_ASSUMED_SESSION_SPREAD,
      '0.12',
    ),
  }
  for (const [key, value] of Object.entries(policy)) {
    if (value === undefined) continue
    if (!VALID_KEYS.includes(key)) {
      throw new OptionsError(
        `${optionPath}.${key}`,
        'is not a metric or setting of a regression policy',
        `Use one of: ${VALID_KEYS.join(', ')}.`,
      )
    }
    if ((GATEABLE_LATENCIES as readonly string[]).includes(key)) {
      const metric = key as LatencyMetric
      if (!isRecord(value)) {
        throw new OptionsError(
          `${optionPath}.${key}`,
          `${show(value)} is not a set of tolerances per statistic`,
          `Name the statistic, e.g. ${key}: { p99: '+10%' } (statistics: ${LATENCY_STATISTICS.join(', ')}).`,
        )
      }
      for (const [statistic, tolerance] of Object.entries(value)) {
        if (tolerance === undefined) continue
        if (!(LATENCY_STATISTICS as readonly string[]).includes(statistic)) {
          throw new OptionsError(
            `${optionPath}.${key}.${statistic}`,
            'is not a statistic a regression check can compare',
            `Use one of: ${LATENCY_STATISTICS.join(', ')}.`,
          )
        }
        parsed.latency.push({
          metric,
          statistic: statistic as LatencyStatistic,
          tolerance: parseTolerance(tolerance, '+', `${optionPath}.${key}.${statistic}`),
        })
      }
    } else if ((GATEABLE_THROUGHPUTS as readonly string[]).includes(key)) {
      parsed.throughput.push({
        metric: key as ThroughputMetric,
        tolerance: parseTolerance(value, '-', `${optionPath}.${key}`),
      })
    }
  }
  // A fixed order, whatever order the options were written in, keeps verdict tables stable.
  parsed.latency.sort(
    (a, b) =>
      GATEABLE_LATENCIES.indexOf(a.metric) - GATEABLE_LATENCIES.indexOf(b.metric) ||
      LATENCY_STATISTICS.indexOf(a.statistic) - LATENCY_STATISTICS.indexOf(b.statistic),
  )
  parsed.throughput.sort((a, b) => GATEABLE_THROUGHPUTS.indexOf(a.metric) - GATEABLE_THROUGHPUTS.indexOf(b.metric))
  return brandParsedPolicy(parsed)
}

/** Marks `policy` as parsed (see {@link PARSED_POLICY}) and returns it. */
export function brandParsedPolicy(policy: Omit<ParsedRegressionPolicy, typeof PARSED_POLICY>): ParsedRegressionPolicy {
  Object.defineProperty(policy, PARSED_POLICY, { value: true, enumerable: false })
  return policy as ParsedRegressionPolicy
}

/** Whether `policy` was parsed by {@link parseRegressionPolicy} (or restored from a file it wrote). */
export function isParsedPolicy(policy: unknown): policy is ParsedRegressionPolicy {
  return typeof policy === 'object' && policy !== null && (policy as Record<symbol, unknown>)[PARSED_POLICY] === true
}

/** {@link DEFAULT_REGRESSION_POLICY}, parsed: what a bench without a policy of its own is judged by. */
export const DEFAULT_PARSED_POLICY: ParsedRegressionPolicy = parseRegressionPolicy(DEFAULT_REGRESSION_POLICY)
