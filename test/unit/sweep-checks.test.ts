import { describe, expect, it } from 'vitest'
import { pointWarnings } from '../../src/core/sweep/run-sweep.ts'
import { BaselineStore } from '../../src/core/baseline/index.ts'
import { OptionsError } from '../../src/core/contract/errors.ts'
import { checkSweep, validateSweepExpectations } from '../../src/core/sweep/check-sweep.ts'
import { formatSweepHeadlines, formatSweepTable } from '../../src/core/sweep/format-sweep.ts'
import { sweepBaselineEntryOf, sweepCurveOf } from '../../src/core/sweep/sweep-baseline.ts'
import type { SweepResult } from '../../src/core/sweep/sweep-result.ts'
import { makeSweep } from '../helpers/sweep-fixtures.ts'
import { MemoryEnvironment } from '../helpers/memory-baseline-environment.ts'

const baselineSweep = makeSweep([
  { value: 8, outputTokensPerSec: 500 },
  { value: 16, outputTokensPerSec: 900 },
  { value: 32, outputTokensPerSec: 1000 },
  { value: 64, outputTokensPerSec: 1010 },
])

function curveOf(result: SweepResult) {
  const entry = sweepBaselineEntryOf(result)
  if (!entry) throw new Error('no entry')
  return entry.sweep
}

describe('checkSweep', () => {
  it('checks throughput against a ratio of the baseline at the same value', () => {
    const current = makeSweep([
      { value: 8, outputTokensPerSec: 480 },
      { value: 16, outputTokensPerSec: 870 },
      { value: 32, outputTokensPerSec: 880 },
      { value: 64, outputTokensPerSec: 900 },
    ])
    const checks = checkSweep(
      current,
      {
        throughput: [
          { at: 64, minVsBaseline: 0.9 },
          { at: 16, minVsBaseline: 0.9, min: 800 },
        ],
      },
      curveOf(baselineSweep),
    )
    expect(checks).toEqual([
      {
        name: 'output tokens/s at concurrency 64 vs baseline',
        status: 'fail',
        message: '900 >= 0.9 x baseline 1010 = 909 (ratio 0.891)',
      },
      { name: 'output tokens/s at concurrency 16', status: 'pass', message: '870 >= 800' },
      {
        name: 'output tokens/s at concurrency 16 vs baseline',
        status: 'pass',
        message: '870 >= 0.9 x baseline 900 = 810 (ratio 0.967)',
      },
    ])
  })

  it('fails a knee earlier than the baseline, passes one at or after it', () => {
    const baseline = curveOf(baselineSweep)
    expect(baseline.knee).toEqual({ value: 32, saturated: true, metric: 'outputTokensPerSec' })
    const earlier = makeSweep([
      { value: 8, outputTokensPerSec: 500 },
      { value: 16, outputTokensPerSec: 700 },
      { value: 32, outputTokensPerSec: 710 },
      { value: 64, outputTokensPerSec: 712 },
    ])
    expect(earlier.knee?.value).toBe(16)
    expect(checkSweep(earlier, { knee: { notEarlierThanBaseline: true } }, baseline)).toEqual([
      {
        name: 'knee vs baseline',
        status: 'fail',
        message: "knee at concurrency 16 not earlier than the baseline's 32",
      },
    ])
    const later = makeSweep([
      { value: 8, outputTokensPerSec: 500 },
      { value: 16, outputTokensPerSec: 900 },
      { value: 32, outputTokensPerSec: 1300 },
      { value: 64, outputTokensPerSec: 1350 },
    ])
    expect(
      checkSweep(later, { knee: { notEarlierThanBaseline: true, atLeast: 32 } }, baseline).map((check) => check.status),
    ).toEqual(['pass', 'pass'])
  })

  it('skips baseline-relative checks without a baseline, but never the absolute ones', () => {
    const checks = checkSweep(baselineSweep, {
      throughput: [{ at: 8, minVsBaseline: 0.9, min: 600 }],
      knee: { notEarlierThanBaseline: true },
    })
    expect(checks.map((check) => [check.name, check.status])).toEqual([
      ['output tokens/s at concurrency 8', 'fail'],
      ['output tokens/s at concurrency 8 vs baseline', 'skip'],
      ['knee vs baseline', 'skip'],
    ])
  })

  it('checks latency ceilings at a point, absolute and against the baseline', () => {
    const slower = makeSweep([
      { value: 8, outputTokensPerSec: 500, ttftMedianMs: 80 },
      { value: 16, outputTokensPerSec: 900 },
      { value: 32, outputTokensPerSec: 1000 },
      { value: 64, outputTokensPerSec: 1010 },
    ])
    const checks = checkSweep(
      slower,
      { latency: [{ at: 8, metric: 'ttftMs', statistic: 'p50', max: 100, maxVsBaseline: 1.2 }] },
      curveOf(baselineSweep),
    )
    expect(checks.map((check) => check.status)).toEqual(['pass', 'fail'])
    expect(checks[1]?.message).toMatch(
      /^\d+(\.\d+)? ms <= 1\.2 x baseline \d+(\.\d+)? ms = \d+(\.\d+)? ms \(ratio 1\.6\d\d\)$/,
    )
  })

  it('always fails a point without completed requests and an invalid scenario', () => {
    const broken = makeSweep([{ value: 1, outputTokensPerSec: 0 }])
    const point = broken.curve[0]
    if (!point) throw new Error('no point')
    point.completed = 0
    point.failed = 200
    broken.scenario = {
      name: 'Server',
      constraint: 'p99 TTFT <= 500 ms and p99 TPOT <= 50 ms',
      metric: { name: 'max Poisson rate', unit: 'req/s' },
      valid: false,
      reasons: ['x'],
      summary: 'Server: no result (INVALID: x)',
    }
    expect(checkSweep(broken).map((check) => [check.name, check.status])).toEqual([
      ['requests at concurrency 1', 'fail'],
      ['Server scenario', 'fail'],
    ])
    // Printed as `<name>: <message>`: the scenario's name once, not twice.
    expect(checkSweep(broken)[1]?.message).toBe('no result (INVALID: x)')
  })

  it('checks a capacity and a scenario metric against absolute figures and the baseline', () => {
    const withCapacity = (rate: number | undefined): SweepResult => {
      const result = makeSweep(
        [
          { value: 10, outputTokensPerSec: 1000, valid: true },
          { value: 20, outputTokensPerSec: 1900, valid: rate === undefined },
        ],
        { capacity: {} },
      )
      result.kind = 'capacity'
      result.axis = 'rate'
      result.capacity = {
        bracketed: true,
        precision: 0.05,
        limits: { ttftMs: 500 },
        percentile: 0.99,
        earlyStopping: false,
        tried: [10, 20],
        constraint: 'p99 TTFT <= 500 ms',
        ...(rate !== undefined ? { rate } : {}),
      }
      return result
    }
    const baseline = curveOf(withCapacity(20))
    expect(baseline.capacity).toEqual({ rate: 20 })
    expect(
      checkSweep(withCapacity(17), { capacity: { minVsBaseline: 0.9, atLeast: 15 } }, baseline).map((check) => [
        check.status,
        check.message,
      ]),
    ).toEqual([
      ['pass', '17 req/s >= 15 req/s'],
      ['fail', '17 req/s >= 0.9 x baseline 20 req/s = 18 req/s'],
    ])
  })

  it('rejects expectations at values the sweep does not run, and bad figures', () => {
    expect(() => validateSweepExpectations({ throughput: [{ at: 3, minVsBaseline: 0.9 }] }, [1, 2, 4])).toThrow(
      OptionsError,
    )
    expect(() => validateSweepExpectations({ throughput: [{ at: 3, minVsBaseline: 0.9 }] }, [1, 2, 4])).toThrow(
      /expect\.throughput\[0\]\.at.*\(1, 2, 4\)/,
    )
    expect(() =>
      validateSweepExpectations({ latency: [{ at: 2, metric: 'itlMs' as 'ttftMs', max: 5 }] }, [1, 2, 4]),
    ).toThrow(/expect\.latency\[0\]\.metric/)
    expect(() => validateSweepExpectations({ knee: { atLeast: -1 } }, [1, 2])).toThrow(/expect\.knee\.atLeast/)
    expect(() => validateSweepExpectations({ kne: {} } as never, [1])).toThrow(/expect\.kne/)
    expect(() =>
      validateSweepExpectations(
        { throughput: [{ at: 4, minVsBaseline: 0.9 }], knee: { notEarlierThanBaseline: true } },
        [1, 2, 4],
      ),
    ).not.toThrow()
  })
})

describe('sweep baselines', () => {
  it('keys the entry on the whole sweep config, so another scenario or value list never shares it', () => {
    const server = makeSweep([{ value: 8, outputTokensPerSec: 500 }], {
      scenario: { name: 'Server', ttftMs: 500, tpotMs: 50 },
    })
    const offline = makeSweep([{ value: 8, outputTokensPerSec: 500 }], { scenario: { name: 'Offline', requests: 8 } })
    const a = sweepBaselineEntryOf(server)
    const b = sweepBaselineEntryOf(offline)
    expect(a?.configHash).not.toBe(b?.configHash)
    expect(a?.config).toMatchObject({ scenario: { name: 'Server', ttftMs: 500, tpotMs: 50 } })
    expect(sweepBaselineEntryOf(makeSweep([{ value: 8, outputTokensPerSec: 500 }]))?.configHash).not.toBe(a?.configHash)
  })

  it('is provisional when any point was measured disturbed (not only the best one), and a quiet local sweep replaces it', async () => {
    const busy = makeSweep([
      { value: 8, outputTokensPerSec: 500 },
      { value: 16, outputTokensPerSec: 900 },
    ])
    const slow = busy.points[0]
    if (!slow) throw new Error('no point')
    slow.result = {
      ...slow.result,
      client: {
        ...slow.result.client,
        selfCheck: {
          cores: 2,
          loadAverage1m: 3,
          stealShare: 0.07,
          disturbed: ['the hypervisor took 7.0 % of the CPU (steal)'],
        },
      },
    }
    const entry = sweepBaselineEntryOf(busy)
    expect(entry?.provisional).toEqual([`${busy.axis} 8: the hypervisor took 7.0 % of the CPU (steal)`])
    expect(sweepBaselineEntryOf(baselineSweep)?.provisional).toBeUndefined()
    const environment = new MemoryEnvironment()
    const path = '/bench/__llm_baselines__/busy-sweep.bench.ts.json'
    const first = await BaselineStore.open(path, { updateMode: 'new', ci: false, environment })
    if (!entry) throw new Error('no entry')
    expect(first.match('curve', entry).state).toBe('written')
    await first.save()
    const quiet = sweepBaselineEntryOf(
      makeSweep([
        { value: 8, outputTokensPerSec: 500 },
        { value: 16, outputTokensPerSec: 900 },
      ]),
    )
    if (!quiet) throw new Error('no entry')
    const underCi = await BaselineStore.open(path, { updateMode: 'none', ci: true, environment })
    expect(underCi.match('curve', quiet).state).toBe('compare')
    const local = await BaselineStore.open(path, { updateMode: 'new', ci: false, environment })
    expect(local.match('curve', quiet).state).toBe('updated')
  })

  it('stores the curve beside the highest-throughput point and reads it back from the file', async () => {
    const environment = new MemoryEnvironment()
    const path = '/bench/__llm_baselines__/sweep.bench.ts.json'
    const first = await BaselineStore.open(path, { updateMode: 'new', ci: false, environment })
    const entry = sweepBaselineEntryOf(baselineSweep)
    if (!entry) throw new Error('no entry')
    expect(entry.throughput.outputTokensPerSec.value).toBe(1010)
    expect(first.match('curve', entry).state).toBe('written')
    await first.save()

    const second = await BaselineStore.open(path, { updateMode: 'none', ci: true, environment })
    const match = second.match('curve', entry)
    expect(match.state).toBe('compare')
    if (match.state !== 'compare') return
    const curve = sweepCurveOf(match.entry)
    expect(curve?.points.map((point) => [point.value, point.outputTokensPerSec])).toEqual([
      [8, 500],
      [16, 900],
      [32, 1000],
      [64, 1010],
    ])
    expect(curve?.knee?.value).toBe(32)

    // Another scenario under the same name: a mismatch naming the change, never a comparison.
    const other = sweepBaselineEntryOf(
      makeSweep([{ value: 8, outputTokensPerSec: 500 }], {
        sweep: { concurrency: [8] },
        scenario: { name: 'Offline', requests: 8 },
      }),
    )
    if (!other) throw new Error('no entry')
    const mismatch = second.match('curve', other)
    expect(mismatch.state).toBe('mismatch')
    if (mismatch.state === 'mismatch') expect(mismatch.error.message).toMatch(/scenario\.name \(none\) -> "Offline"/)
  })

  it('reads no curve from a plain bench.llm entry', () => {
    const entry = sweepBaselineEntryOf(baselineSweep)
    if (!entry) throw new Error('no entry')
    const { sweep: _sweep, ...plain } = entry
    expect(sweepCurveOf(plain)).toBeUndefined()
  })
})

describe('formatSweepTable', () => {
  it('prints one row per point and marks the knee and invalid points', () => {
    const result = makeSweep([
      { value: 8, outputTokensPerSec: 500, valid: true },
      { value: 16, outputTokensPerSec: 1000, valid: true },
      { value: 32, outputTokensPerSec: 1010, valid: false },
    ])
    const lines = formatSweepTable(result).split('\n')
    // Header, three points, then what each mark used means.
    expect(lines).toHaveLength(6)
    expect(lines[4]).toBe(
      '<- knee: where output throughput stops rising (no later point gains more than the minimum gain)',
    )
    expect(lines[5]).toMatch(/^\(invalid\): the point missed a latency limit or had too many failed requests/)
    expect(lines[0]).toMatch(/^\s*conc\s+out tok\/s\s+req\/s\s+TTFT p50/)
    expect(lines[2]).toMatch(/^\s+16\s+1000\s+7\.81\s.*<- knee$/)
    expect(lines[3]).toMatch(/\(invalid\)$/)
    expect(formatSweepHeadlines(result)).toEqual([
      'knee: concurrency 16 (1000 output tokens/s; no later point gains more than 10 %)',
    ])
    // A legend line only for the marks used: a single rising point is `<- knee (still rising)`, valid.
    const rising = formatSweepTable(makeSweep([{ value: 8, outputTokensPerSec: 500, valid: true }])).split('\n')
    expect(rising.slice(2)).toEqual([
      '<- knee (still rising): the last point; throughput still rose there, so the knee lies at or beyond it',
    ])
  })
})

describe('formatSweepTable of a capacity search', () => {
  it('marks the capacity, not the knee, and shows the percentile its limits are at', () => {
    const points = makeSweep([
      { value: 2, outputTokensPerSec: 250, valid: true },
      { value: 4, outputTokensPerSec: 500, valid: true },
      { value: 8, outputTokensPerSec: 505, valid: false },
    ])
    const capacity = (percentile: number): SweepResult => ({
      ...points,
      kind: 'capacity',
      axis: 'rate',
      capacity: {
        rate: 4,
        failedRate: 8,
        bracketed: true,
        precision: 0.1,
        limits: { ttftMs: 500 },
        percentile,
        earlyStopping: false,
        tried: [2, 4, 8],
        constraint: `p${percentile * 100} TTFT <= 500 ms`,
      },
    })
    const p90 = formatSweepTable(capacity(0.9)).split('\n')
    expect(p90[0]).toMatch(
      /^\s*rate\/s\s+out tok\/s\s+req\/s\s+TTFT p50\s+TTFT p90\s+TPOT p50\s+TPOT p90\s+E2E p50\s+E2E p90/,
    )
    // The capacity search's knee (4, where throughput stops rising) is not its answer: the capacity is marked.
    expect(points.knee?.value).toBe(4)
    expect(p90[2]).toMatch(/^\s+4\s+500\.0\s.*<- capacity$/)
    expect(p90.join('\n')).not.toContain('<- knee')
    expect(p90[3]).toMatch(/\(invalid\)$/)
    const p90Cell = points.curve[1]!.ttftMs.p90
    expect(p90[2]).toContain(p90Cell.toFixed(2))
    expect(p90.slice(4)).toEqual([
      '<- capacity: the highest rate tried that met the limits (the capacity headline)',
      expect.stringMatching(/^\(invalid\)/),
    ])
    // At p99 (the default), p99 columns.
    expect(formatSweepTable(capacity(0.99)).split('\n')[0]).toContain('TTFT p99')
  })
})

describe('pointWarnings', () => {
  it('each warning once, with the values that gave it, or every point', () => {
    const point = (value: number, warnings: string[]) => ({ value, order: 0, result: { warnings } }) as never
    const warnings = pointWarnings('-np', [
      point(1, ['No GPU telemetry.', 'client fell behind']),
      point(2, ['No GPU telemetry.', 'client fell behind']),
      point(4, ['No GPU telemetry.']),
    ])
    expect(warnings).toEqual(['every point: No GPU telemetry.', '-np 1, 2: client fell behind'])
    expect(pointWarnings('rate', [point(3, ['late'])])).toEqual(['rate 3: late'])
  })
})
