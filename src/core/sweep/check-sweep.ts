import { OptionsError } from '../contract/errors.ts'
import { rejectUnknownKeys } from '../contract/known-keys.ts'
import { isRecord } from '../contract/is-record.ts'
import type { SweepBaselineCurve } from './sweep-baseline.ts'
import type { SweepExpectations } from './sweep-expectations.ts'
import { axisLabelOf, type SweepCurvePoint, type SweepResult } from './sweep-result.ts'
import { formatFigure } from '../platform/format-figure.ts'
import { failureRuling } from '../slo/index.ts'
import { disturbancesText } from '../contract/disturbances-text.ts'

/** The outcome of one assertion on a sweep. */
export interface SweepCheck {
  /** What was checked, e.g. `output tokens/s at concurrency 64 vs baseline`. */
  name: string
  /**
   * `skip`: nothing to compare against (no baseline yet, a value the sweep did not reach). `inconclusive`: as a
   * bench's check, a pass or fail the run cannot support (a disturbed machine, a provisional baseline).
   */
  status: 'pass' | 'fail' | 'inconclusive' | 'skip'
  /** Expected, measured and, where relevant, baseline and ratio, for humans. */
  message: string
}

/** Throughputs as people read them (`output tokens/s`), for checks and headlines. */
export const THROUGHPUT_LABEL = {
  outputTokensPerSec: 'output tokens/s',
  requestsPerSec: 'requests/s',
  totalTokensPerSec: 'total tokens/s',
} as const
const LATENCY_LABEL = { ttftMs: 'TTFT', tpotMs: 'TPOT', e2eMs: 'E2E' } as const

function find(points: ReadonlyArray<SweepCurvePoint>, at: number): SweepCurvePoint | undefined {
  return points.find((point) => point.value === at)
}

function check(name: string, pass: boolean, message: string): SweepCheck {
  return { name, status: pass ? 'pass' : 'fail', message }
}

function skip(name: string, message: string): SweepCheck {
  return { name, status: 'skip', message }
}

/** The keys of `expect` and of each expectation in it: anything else is a typo, refused with "did you mean". */
const EXPECTATION_KEYS = {
  expect: ['throughput', 'latency', 'knee', 'capacity', 'scenarioMetric'],
  throughput: ['at', 'metric', 'min', 'minVsBaseline'],
  latency: ['at', 'metric', 'statistic', 'max', 'maxVsBaseline'],
  knee: ['atLeast', 'notEarlierThanBaseline'],
  capacity: ['atLeast', 'minVsBaseline'],
  scenarioMetric: ['atLeast', 'atMost', 'minVsBaseline', 'maxVsBaseline'],
} as const

/**
 * The rule of `bench.llm` for failed requests ({@link failureRuling}), per point of a curve (a search or a scenario
 * judges its points' failures itself): a point that lost more than 1 % of its requests fails the sweep when the
 * server caused them (status codes, error events, cut streams), on any machine; timeouts and drained requests on a
 * disturbed machine are the machine's: inconclusive, as such a bench is not judged and not failed. Points that
 * completed nothing are checked apart.
 */
export function sweepFailureChecks(result: SweepResult): SweepCheck[] {
  if (result.kind !== 'sweep') return []
  const axis = axisLabelOf(result)
  const checks: SweepCheck[] = []
  for (const point of result.points) {
    const ruling = failureRuling(point.result, 'a point may lose')
    if (ruling === undefined) continue
    const name = `failed requests at ${axis} ${point.value}`
    if (ruling.status === 'excused')
      checks.push({
        name,
        status: 'inconclusive',
        message: `${ruling.text}; not failed: the machine was disturbed (${disturbancesText(ruling.disturbed)})`,
      })
    else checks.push(check(name, false, `${ruling.text}. The point describes a failing server: fix the failures.`))
  }
  return checks
}

/**
 * Checks a sweep against its expectations and, for the relative ones, against the baseline
 * curve (skipped when there is none). Always adds the checks no sweep may fail: every point
 * completed at least one request and lost no more than the failure rule allows ({@link sweepFailureChecks}),
 * and a scenario's run is valid under its rules.
 */
export function checkSweep(
  result: SweepResult,
  expectations: SweepExpectations = {},
  baseline?: SweepBaselineCurve,
): SweepCheck[] {
  const checks: SweepCheck[] = []
  const axis = axisLabelOf(result)
  for (const point of result.curve) {
    if (point.completed === 0)
      checks.push(
        check(
          `requests at ${axis} ${point.value}`,
          false,
          `no request completed at ${axis} ${point.value} (${point.failed} failed)`,
        ),
      )
  }
  checks.push(...sweepFailureChecks(result))
  if (result.scenario) {
    // The check's name says which scenario; its message is the summary without the name again.
    const { name, summary } = result.scenario
    checks.push(
      check(
        `${name} scenario`,
        result.scenario.valid,
        summary.startsWith(`${name}: `) ? summary.slice(name.length + 2) : summary,
      ),
    )
  }

  for (const expectation of expectations.throughput ?? []) {
    const metric = expectation.metric ?? 'outputTokensPerSec'
    const label = `${THROUGHPUT_LABEL[metric]} at ${axis} ${expectation.at}`
    const current = find(result.curve, expectation.at)
    if (!current) {
      checks.push(skip(label, `the sweep has no point at ${axis} ${expectation.at}`))
      continue
    }
    const value = current[metric]
    if (expectation.min !== undefined)
      checks.push(check(label, value >= expectation.min, `${formatFigure(value)} >= ${formatFigure(expectation.min)}`))
    if (expectation.minVsBaseline !== undefined) {
      const base = baseline ? find(baseline.points, expectation.at) : undefined
      if (!base)
        checks.push(
          skip(
            `${label} vs baseline`,
            baseline ? `the baseline has no point at ${axis} ${expectation.at}` : 'no baseline to compare with yet',
          ),
        )
      else {
        const floor = expectation.minVsBaseline * base[metric]
        checks.push(
          check(
            `${label} vs baseline`,
            value >= floor,
            `${formatFigure(value)} >= ${expectation.minVsBaseline} x baseline ${formatFigure(base[metric])} = ${formatFigure(floor)} (ratio ${(value / base[metric]).toFixed(3)})`,
          ),
        )
      }
    }
  }

  for (const expectation of expectations.latency ?? []) {
    const statistic = expectation.statistic ?? 'p99'
    const label = `${statistic} ${LATENCY_LABEL[expectation.metric]} at ${axis} ${expectation.at}`
    const current = find(result.curve, expectation.at)
    if (!current) {
      checks.push(skip(label, `the sweep has no point at ${axis} ${expectation.at}`))
      continue
    }
    const value = current[expectation.metric][statistic]
    if (expectation.max !== undefined)
      checks.push(
        check(label, value <= expectation.max, `${formatFigure(value)} ms <= ${formatFigure(expectation.max)} ms`),
      )
    if (expectation.maxVsBaseline !== undefined) {
      const base = baseline ? find(baseline.points, expectation.at) : undefined
      if (!base)
        checks.push(
          skip(
            `${label} vs baseline`,
            baseline ? `the baseline has no point at ${axis} ${expectation.at}` : 'no baseline to compare with yet',
          ),
        )
      else {
        const baseValue = base[expectation.metric][statistic]
        const ceiling = expectation.maxVsBaseline * baseValue
        checks.push(
          check(
            `${label} vs baseline`,
            value <= ceiling,
            `${formatFigure(value)} ms <= ${expectation.maxVsBaseline} x baseline ${formatFigure(baseValue)} ms = ${formatFigure(ceiling)} ms (ratio ${(value / baseValue).toFixed(3)})`,
          ),
        )
      }
    }
  }

  const knee = expectations.knee
  if (knee) {
    if (!result.knee) checks.push(skip('knee', 'the sweep has no curve to find a knee on'))
    else {
      const current = result.knee
      const where = `${current.value}${current.saturated ? '' : ' (still rising: at or beyond)'}`
      if (knee.atLeast !== undefined) {
        // An unsaturated curve's knee lies at or beyond its last point, so it cannot be too early there.
        checks.push(
          check(
            'knee',
            current.value >= knee.atLeast || !current.saturated,
            `knee at ${axis} ${where} >= ${knee.atLeast}`,
          ),
        )
      }
      if (knee.notEarlierThanBaseline) {
        if (!baseline?.knee)
          checks.push(
            skip('knee vs baseline', baseline ? 'the baseline has no knee' : 'no baseline to compare with yet'),
          )
        else {
          const pass = current.value >= baseline.knee.value || !current.saturated
          checks.push(
            check(
              'knee vs baseline',
              pass,
              `knee at ${axis} ${where} not earlier than the baseline's ${baseline.knee.value}${baseline.knee.saturated ? '' : ' (still rising)'}`,
            ),
          )
        }
      }
    }
  }

  const capacity = expectations.capacity
  if (capacity) {
    const rate = result.capacity?.rate
    if (!result.capacity) checks.push(skip('capacity', 'not a capacity search'))
    else {
      const shown = rate === undefined ? 'none' : `${formatFigure(rate)} req/s`
      if (capacity.atLeast !== undefined)
        checks.push(
          check(
            'capacity',
            rate !== undefined && rate >= capacity.atLeast,
            `${shown} >= ${formatFigure(capacity.atLeast)} req/s`,
          ),
        )
      if (capacity.minVsBaseline !== undefined) {
        const base = baseline?.capacity?.rate
        if (base === undefined)
          checks.push(
            skip(
              'capacity vs baseline',
              baseline ? 'the baseline found no capacity' : 'no baseline to compare with yet',
            ),
          )
        else {
          const floor = capacity.minVsBaseline * base
          checks.push(
            check(
              'capacity vs baseline',
              rate !== undefined && rate >= floor,
              `${shown} >= ${capacity.minVsBaseline} x baseline ${formatFigure(base)} req/s = ${formatFigure(floor)} req/s`,
            ),
          )
        }
      }
    }
  }

  const metricExpect = expectations.scenarioMetric
  if (metricExpect) {
    const scenario = result.scenario
    if (!scenario) checks.push(skip('scenario metric', 'not a scenario'))
    else {
      const { value, unit, name } = scenario.metric
      const label = `${scenario.name} ${name}`
      const shown = value === undefined ? 'none' : `${formatFigure(value)} ${unit}`
      if (metricExpect.atLeast !== undefined)
        checks.push(
          check(
            label,
            value !== undefined && value >= metricExpect.atLeast,
            `${shown} >= ${formatFigure(metricExpect.atLeast)} ${unit}`,
          ),
        )
      if (metricExpect.atMost !== undefined)
        checks.push(
          check(
            label,
            value !== undefined && value <= metricExpect.atMost,
            `${shown} <= ${formatFigure(metricExpect.atMost)} ${unit}`,
          ),
        )
      for (const [key, ratio] of [
        ['minVsBaseline', metricExpect.minVsBaseline],
        ['maxVsBaseline', metricExpect.maxVsBaseline],
      ] as const) {
        if (ratio === undefined) continue
        const base = baseline?.scenario?.value
        if (base === undefined) {
          checks.push(
            skip(`${label} vs baseline`, baseline ? 'the baseline has no value' : 'no baseline to compare with yet'),
          )
          continue
        }
        const bound = ratio * base
        const pass = value !== undefined && (key === 'minVsBaseline' ? value >= bound : value <= bound)
        checks.push(
          check(
            `${label} vs baseline`,
            pass,
            `${shown} ${key === 'minVsBaseline' ? '>=' : '<='} ${ratio} x baseline ${formatFigure(base)} ${unit} = ${formatFigure(bound)} ${unit}`,
          ),
        )
      }
    }
  }
  return checks
}

const positive = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value) && value > 0

/** Checks expectations before anything runs; `values` are the swept values (undefined for searches). Throws {@link OptionsError}. */
export function validateSweepExpectations(
  expectations: SweepExpectations | undefined,
  values: number[] | undefined,
  option = 'expect',
): void {
  if (expectations === undefined) return
  if (typeof expectations !== 'object' || expectations === null)
    throw new OptionsError(
      option,
      'must be an object',
      'Write e.g. `expect: { knee: { notEarlierThanBaseline: true } }`.',
    )
  rejectUnknownKeys(expectations, EXPECTATION_KEYS.expect, option)
  const lists = [
    ['throughput', expectations.throughput],
    ['latency', expectations.latency],
  ] as const
  for (const [name, list] of lists) {
    if (list === undefined) continue
    if (!Array.isArray(list))
      throw new OptionsError(
        `${option}.${name}`,
        'must be an array',
        `Write e.g. \`${name}: [{ at: 64, ${name === 'throughput' ? 'minVsBaseline: 0.9' : "metric: 'ttftMs', max: 500"} }]\`.`,
      )
    const items = list as unknown as ReadonlyArray<Record<string, unknown>>
    items.forEach((item, i) => {
      const where = `${option}.${name}[${i}]`
      if (isRecord(item)) rejectUnknownKeys(item, EXPECTATION_KEYS[name], where)
      if (typeof item.at !== 'number' || (values !== undefined && !values.includes(item.at))) {
        throw new OptionsError(
          `${where}.at`,
          `must be one of the swept values${values ? ` (${values.join(', ')})` : ''}, got ${String(item.at)}`,
          'Point at a value the sweep runs.',
        )
      }
      for (const key of ['min', 'minVsBaseline', 'max', 'maxVsBaseline']) {
        if (item[key] !== undefined && !positive(item[key]))
          throw new OptionsError(
            `${where}.${key}`,
            `must be a number > 0, got ${String(item[key])}`,
            'Use e.g. 0.9 for a ratio.',
          )
      }
      if (name === 'latency' && !['ttftMs', 'tpotMs', 'e2eMs'].includes(item.metric as string)) {
        throw new OptionsError(
          `${where}.metric`,
          `must be ttftMs, tpotMs or e2eMs, got ${String(item.metric)}`,
          'Name the latency to limit.',
        )
      }
      if (
        name === 'latency' &&
        item.statistic !== undefined &&
        !['p50', 'p90', 'p99'].includes(item.statistic as string)
      ) {
        throw new OptionsError(
          `${where}.statistic`,
          `must be p50, p90 or p99, got ${String(item.statistic)}`,
          'Leave it out for p99.',
        )
      }
      if (
        name === 'throughput' &&
        item.metric !== undefined &&
        !Object.keys(THROUGHPUT_LABEL).includes(item.metric as string)
      ) {
        throw new OptionsError(
          `${where}.metric`,
          `must be one of ${Object.keys(THROUGHPUT_LABEL).join(', ')}, got ${String(item.metric)}`,
          'Leave it out for output tokens per second.',
        )
      }
    })
  }
  for (const [name, group] of [
    ['knee', expectations.knee],
    ['capacity', expectations.capacity],
    ['scenarioMetric', expectations.scenarioMetric],
  ] as const) {
    if (group === undefined) continue
    if (isRecord(group)) rejectUnknownKeys(group, EXPECTATION_KEYS[name], `${option}.${name}`)
    for (const [key, value] of Object.entries(group)) {
      if (key === 'notEarlierThanBaseline') continue
      if (value !== undefined && !positive(value))
        throw new OptionsError(
          `${option}.${name}.${key}`,
          `must be a number > 0, got ${String(value)}`,
          'Fix the figure.',
        )
    }
  }
}
