/**
 * Fixed report entries for the reporter tests: real results with HDR histograms (from
 * baseline-fixtures), a timeline, GPU telemetry, errors, hand-written verdicts and SLO checks
 * (hand-written so the snapshots change only when a reporter changes), and the baselines the
 * HTML report draws against.
 */
import { baselineEntryFrom, type BaselineEntry } from '../../src/core/baseline/index.ts'
import { type Check } from '../../src/core/verdict/index.ts'
import type { TestCase, TestModule } from 'vitest/node'
import type { SloCheck } from '../../src/core/slo/index.ts'
import type { BenchmarkResult, GpuSample, Timeline } from '../../src/core/contract/result.ts'
import type { ReportEntry } from '../../reporters/index.ts'
import { environment, lognormalSamples, makeResult, seededRandom } from './baseline-fixtures.ts'

function round(value: number, digits = 3): number {
  return Number(value.toFixed(digits))
}

function timelineOf(seed: number, windows: number, outputPerWindow: number, inFlight: number): Timeline {
  const random = seededRandom(seed)
  const outputTokens = Array.from({ length: windows }, (_, index) => {
    const ramp = Math.min(1, (index + 1) / 4)
    // The last window is partial (a quarter of a second): a quarter of the tokens.
    const share = index === windows - 1 ? 0.25 : 1
    return Math.round(outputPerWindow * ramp * share * (0.9 + 0.2 * random()))
  })
  const requests = outputTokens.map((tokens) => Math.round(tokens / 128))
  return {
    windowMs: 1000,
    requests,
    outputTokens,
    totalTokens: outputTokens.map((tokens, index) => tokens + (requests[index] ?? 0) * 512),
    inFlightMax: outputTokens.map((_, index) =>
      index === 0 ? Math.ceil(inFlight / 2) : inFlight - (random() < 0.2 ? 1 : 0),
    ),
    lastWindowPartial: true,
  }
}

function gpuSamplesOf(seed: number, seconds: number): GpuSample[] {
  const random = seededRandom(seed)
  const samples: GpuSample[] = []
  for (let step = 0; step <= seconds * 2; step++) {
    const t = 1000 + step * 500
    const load = Math.min(1, step / 8)
    for (const index of [0, 1]) {
      samples.push({
        t,
        index,
        memoryUsedMiB: Math.round(38_000 + 33_000 * load + index * 900 + random() * 200),
        utilizationPct: Math.round(95 * load),
        powerW: round(90 + 510 * load - index * 25 + random() * 30, 1),
      })
    }
  }
  return samples
}

function check(
  metric: Check['metric'],
  statistic: Check['statistic'],
  baseline: number,
  current: number,
  tolerance: number,
  halfWidth: number,
  n: { baseline: number; current: number },
  reason?: string,
): Check {
  const ratio = round(current / baseline, 4)
  const ciLow = round(ratio - halfWidth, 4)
  const ciHigh = round(ratio + halfWidth, 4)
  const limit = 1 + tolerance
  const beyond = tolerance >= 0 ? ciLow > limit : ciHigh < limit
  const within = tolerance >= 0 ? ciHigh <= limit : ciLow >= limit
  const status = beyond ? 'fail' : within ? 'pass' : 'inconclusive'
  return {
    metric,
    statistic,
    unit: metric.endsWith('Ms') ? 'ms' : metric === 'requestsPerSec' ? 'req/s' : 'tok/s',
    baseline,
    current,
    ratio,
    ciLow,
    ciHigh,
    tolerance,
    n,
    status,
    ...(reason ? { reason } : {}),
  }
}

const GPU_ENVIRONMENT = environment({
  gpu: 'NVIDIA H100 80GB HBM3',
  gpus: 2,
  driver: '550.54.15',
  serverVersion: '0.10.1',
})

const BASE_STEADY = makeResult({
  ttftMs: lognormalSamples(seededRandom(11), 500, 42, 0.35),
  tpotMs: lognormalSamples(seededRandom(12), 500, 11, 0.08),
  e2eMs: lognormalSamples(seededRandom(13), 500, 1450, 0.12),
  environment: GPU_ENVIRONMENT,
  throughput: { requestsPerSec: 8.41, outputTokensPerSec: 1076.5, totalTokensPerSec: 5382.4 },
})

const BASE_REGRESSED = makeResult({
  ttftMs: lognormalSamples(seededRandom(21), 400, 120, 0.3),
  tpotMs: lognormalSamples(seededRandom(22), 400, 18, 0.1),
  e2eMs: lognormalSamples(seededRandom(23), 400, 2400, 0.15),
  environment: GPU_ENVIRONMENT,
  config: { ...BASE_STEADY.config, load: { rate: 20, arrival: 'poisson', requests: 400 } },
})

/** A passing bench with GPU telemetry, goodput, SLOs and a baseline comparison. */
export function steadyResult(): BenchmarkResult {
  const result = makeResult({
    ttftMs: lognormalSamples(seededRandom(1), 500, 43, 0.35),
    tpotMs: lognormalSamples(seededRandom(2), 500, 11.1, 0.08),
    e2eMs: lognormalSamples(seededRandom(3), 500, 1460, 0.12),
    environment: GPU_ENVIRONMENT,
    throughput: { requestsPerSec: 8.3, outputTokensPerSec: 1062.4, totalTokensPerSec: 5312 },
    durationMs: 60_250,
  })
  result.metrics.itlMs = { ...result.metrics.tpotMs, count: 63_500 }
  result.goodput = { limits: { ttftMs: 200, tpotMs: 50 }, goodRequests: 488, share: 0.976, requestsPerSec: 8.1 }
  result.timeline = timelineOf(7, 61, 1070, 16)
  result.gpu = {
    intervalMs: 500,
    gpus: [
      {
        index: 0,
        name: 'NVIDIA H100 80GB HBM3',
        memoryPeakMiB: 71_204,
        memoryMeanMiB: 69_880,
        memoryTotalMiB: 81_559,
        powerMeanW: 560.2,
        powerPeakW: 631.5,
        energyJ: 33_742,
        energyPerOutputTokenJ: 0.528,
        utilizationMeanPct: 93,
      },
      {
        index: 1,
        name: 'NVIDIA H100 80GB HBM3',
        memoryPeakMiB: 72_098,
        memoryMeanMiB: 70_770,
        memoryTotalMiB: 81_559,
        powerMeanW: 535.9,
        powerPeakW: 604.1,
        energyJ: 32_281,
        energyPerOutputTokenJ: 0.505,
        utilizationMeanPct: 91,
      },
    ],
    samples: gpuSamplesOf(5, 61),
  }
  result.startedAt = '2025-01-01T12:00:00.000Z'
  return result
}

/** A failing bench: TTFT p99 regressed, three requests timed out. */
export function regressedResult(): BenchmarkResult {
  const result = makeResult({
    ttftMs: lognormalSamples(seededRandom(31), 397, 150, 0.45),
    tpotMs: lognormalSamples(seededRandom(32), 397, 18.4, 0.1),
    e2eMs: lognormalSamples(seededRandom(33), 397, 2600, 0.18),
    environment: GPU_ENVIRONMENT,
    counts: { total: 400, completed: 397, failed: 3 },
    throughput: { requestsPerSec: 19.6, outputTokensPerSec: 2508.8, totalTokensPerSec: 12544 },
    config: BASE_REGRESSED.config,
    durationMs: 20_250,
  })
  result.errors = [{ kind: 'timeout', message: 'no response within 600000 ms', count: 3 }]
  result.warnings = ['3 requests timed out']
  result.timeline = timelineOf(9, 21, 2500, 48)
  result.startedAt = '2025-01-01T12:01:10.000Z'
  return result
}

/** A bench without GPU, recorded as a new baseline (no comparison). */
export function firstRunResult(): BenchmarkResult {
  const result = makeResult({
    ttftMs: lognormalSamples(seededRandom(41), 120, 35, 0.2),
    tpotMs: lognormalSamples(seededRandom(42), 120, 10, 0.05),
    e2eMs: lognormalSamples(seededRandom(43), 120, 360, 0.06),
    environment: {
      ...environment({ gpus: 0 }),
      server: { name: 'vitest-llm-bench-sim', version: 'sim-0.1.0', model: 'sim-model' },
    },
    throughput: { requestsPerSec: 21.9, outputTokensPerSec: 700.8, totalTokensPerSec: 3504 },
    config: {
      target: { baseUrl: 'http://127.0.0.1:41234', api: 'completions', model: 'sim-model' },
      workload: { kind: 'synthetic', inputTokens: { mean: 128 }, outputTokens: { mean: 32, stddev: 4 } },
      load: { concurrency: 8, requests: 120 },
      warmup: { requests: 8 },
      seed: 1,
    },
    durationMs: 5480,
  })
  result.startedAt = '2025-01-01T12:02:00.000Z'
  return result
}

const STEADY_SLO: SloCheck[] = [
  {
    metric: 'ttftMs',
    statistic: 'p99',
    bound: 'max',
    limit: 500,
    measured: 96.8,
    unit: 'ms',
    n: 500,
    status: 'pass',
    message: 'ttftMs p99 96.8 ms <= 500 ms (n=500)',
  },
  {
    metric: 'errors',
    statistic: 'maxRate',
    bound: 'max',
    limit: 0,
    measured: 0,
    unit: 'share',
    n: 500,
    status: 'pass',
    message: 'error rate 0% <= 0% (n=500)',
  },
]

/** The three fixed entries, in report order. */
export function reportEntries(): ReportEntry[] {
  const steady = steadyResult()
  const regressed = regressedResult()
  const n500 = { baseline: 500, current: 500 }
  const n400 = { baseline: 400, current: 397 }
  return [
    {
      name: 'chat > steady closed loop, 16 streams',
      file: 'benches/chat.bench.ts',
      state: 'passed',
      result: steady,
      verdict: {
        status: 'pass',
        confidence: 0.95,
        notes: [],
        checks: [
          check('ttftMs', 'p50', BASE_STEADY.metrics.ttftMs.p50, steady.metrics.ttftMs.p50, 0.15, 0.05, n500),
          check('tpotMs', 'p50', BASE_STEADY.metrics.tpotMs.p50, steady.metrics.tpotMs.p50, 0.1, 0.02, n500),
          check('outputTokensPerSec', 'value', 1076.5, 1062.4, -0.1, 0.03, { baseline: 12, current: 12 }),
        ],
      },
      sloChecks: STEADY_SLO,
      baselinePath: '/repo/benches/__llm_baselines__/chat.bench.ts.json',
      baselineState: 'compare',
    },
    {
      name: 'chat > poisson arrivals, 20 req/s',
      file: 'benches/chat.bench.ts',
      state: 'failed',
      result: regressed,
      verdict: {
        status: 'fail',
        confidence: 0.95,
        notes: ['3 requests failed in this run and none in the baseline.'],
        checks: [
          check('ttftMs', 'p99', BASE_REGRESSED.metrics.ttftMs.p99, regressed.metrics.ttftMs.p99, 0.1, 0.12, n400),
          check(
            'tpotMs',
            'p50',
            BASE_REGRESSED.metrics.tpotMs.p50,
            regressed.metrics.tpotMs.p50,
            0.1,
            0.1,
            n400,
            'interval straddles the limit; more requests would settle it',
          ),
          check('requestsPerSec', 'value', 19.9, 19.6, -0.05, 0.02, { baseline: 20, current: 20 }),
        ],
      },
      baselinePath: '/repo/benches/__llm_baselines__/chat.bench.ts.json',
      baselineState: 'compare',
      failure:
        'chat > poisson arrivals, 20 req/s: 397 of 400 requests completed in 20.3 s\n\nBaseline comparison: FAIL (1 fail, 1 inconclusive, 1 pass)',
    },
    {
      name: 'completions > first run',
      file: 'benches/completions.bench.ts',
      state: 'passed',
      result: firstRunResult(),
      baselinePath: '/repo/benches/__llm_baselines__/completions.bench.ts.json',
      baselineState: 'written',
    },
  ]
}

/** The baselines of the compared entries (what `loadBaselines` would read from their files). */
export function baselinesFor(entries: readonly ReportEntry[]): Map<ReportEntry, BaselineEntry> {
  const map = new Map<ReportEntry, BaselineEntry>()
  const [steady, regressed] = entries
  if (steady) map.set(steady, baselineEntryFrom(BASE_STEADY, { recordedAt: '2024-12-01T00:00:00.000Z' }))
  if (regressed) map.set(regressed, baselineEntryFrom(BASE_REGRESSED, { recordedAt: '2024-12-01T00:00:00.000Z' }))
  return map
}

/** A finished Vitest test case as reporters see it, carrying the entry's task meta. */
export function testCaseOf(entry: ReportEntry, id = 'case-1'): TestCase {
  const meta = {
    llmBench: {
      result: entry.result,
      verdict: entry.verdict,
      sloChecks: entry.sloChecks,
      baselinePath: entry.baselinePath,
      baselineState: entry.baselineState,
    },
  }
  return {
    id,
    fullName: entry.name,
    module: { moduleId: `/repo/${entry.file}`, relativeModuleId: entry.file },
    meta: () => meta,
    result: () => ({ state: entry.state, errors: entry.failure ? [{ message: entry.failure }] : undefined }),
  } as unknown as TestCase
}

/** A finished test module holding the entries' tests, as `onTestRunEnd` receives it. */
export function moduleOf(entries: readonly ReportEntry[]): TestModule {
  const tests = entries.map((entry, index) => testCaseOf(entry, `case-${index}`))
  return {
    children: {
      *allTests() {
        yield* tests
      },
    },
  } as unknown as TestModule
}
