/**
 * Synthetic results for the baseline, verdict and SLO tests: seeded samples, real HDR histograms
 * (hdr-histogram-js, microseconds, 3 significant digits, as the metrics module records them) and a
 * complete BenchmarkResult around them.
 */
import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js'
import type { BenchmarkResult, EnvironmentInfo, MetricSummary } from '../../src/core/contract/result.ts'

export { seededRandom } from './metrics-fixtures.ts'

/** `n` lognormal values with the given median (ms) and log-space standard deviation. */
export function lognormalSamples(random: () => number, n: number, medianMs: number, sigma: number): number[] {
  const out: number[] = []
  while (out.length < n) {
    const u = 1 - random()
    const v = random()
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
    out.push(medianMs * Math.exp(sigma * z))
  }
  return out
}

/** Compressed base64 HDR histogram of millisecond values, recorded in whole microseconds. */
export function encodedHistogramOf(valuesMs: readonly number[]): string {
  const histogram = build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
    autoResize: true,
  })
  for (const value of valuesMs) histogram.recordValue(Math.round(value * 1000))
  return encodeIntoCompressedBase64(histogram)
}

/** Exact summary of values, percentiles at rank ceil(q * n) as hdr reads them. */
export function summaryOf(values: readonly number[]): MetricSummary {
  const n = values.length
  if (n === 0) return { count: 0, min: 0, max: 0, mean: 0, stddev: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0 }
  const sorted = [...values].sort((a, b) => a - b)
  const at = (q: number): number => sorted[Math.max(1, Math.ceil(q * n - 1e-9)) - 1] ?? 0
  const mean = sorted.reduce((a, b) => a + b, 0) / n
  const stddev = Math.sqrt(sorted.reduce((acc, v) => acc + (v - mean) ** 2, 0) / n)
  return {
    count: n,
    min: sorted[0] ?? 0,
    max: sorted[n - 1] ?? 0,
    mean,
    stddev,
    p50: at(0.5),
    p90: at(0.9),
    p95: at(0.95),
    p99: at(0.99),
    p999: at(0.999),
  }
}

export function environment(
  overrides: { gpu?: string; gpus?: number; driver?: string; serverVersion?: string; nodeVersion?: string } = {},
): EnvironmentInfo {
  const count = overrides.gpus ?? 1
  return {
    runtime: { name: 'node', version: overrides.nodeVersion ?? '24.1.0' },
    toolVersion: '0.1.0',
    host: { platform: 'linux', arch: 'x64', hostname: 'runner-17', cpuModel: 'AMD EPYC 9654', cpuCores: 96 },
    gpus: Array.from({ length: count }, (_, index) => ({
      index,
      name: overrides.gpu ?? 'NVIDIA A100-SXM4-80GB',
      memoryTotalMiB: 81920,
      driverVersion: overrides.driver ?? '550.54.15',
    })),
    server: { name: 'vllm', version: overrides.serverVersion ?? '0.10.1', model: 'meta-llama/Llama-3.1-8B-Instruct' },
  }
}

export interface ResultSpec {
  ttftMs?: number[]
  tpotMs?: number[]
  e2eMs?: number[]
  /** Time to first output, ms: given, the result reports `ttfoMs` (as a run whose streams carried reasoning). */
  ttfoMs?: number[]
  /** Per-token ITL, ms: given, the result reports `itlPerTokenMs` (as a run with usage in every chunk). */
  itlPerTokenMs?: number[]
  throughput?: Partial<BenchmarkResult['throughput']>
  counts?: Partial<BenchmarkResult['counts']>
  environment?: EnvironmentInfo
  config?: Record<string, unknown>
  keptUp?: boolean
  durationMs?: number
}

export const DEFAULT_CONFIG: Record<string, unknown> = {
  target: { baseUrl: 'http://127.0.0.1:41234', api: 'chat', model: 'meta-llama/Llama-3.1-8B-Instruct' },
  workload: { kind: 'synthetic', inputTokens: { mean: 512 }, outputTokens: { mean: 128 } },
  load: { concurrency: 16, requests: 500 },
  seed: 0,
}

/** A complete, JSON-serialisable BenchmarkResult around the given samples. */
export function makeResult(spec: ResultSpec = {}): BenchmarkResult {
  const ttft = spec.ttftMs ?? []
  const tpot = spec.tpotMs ?? []
  const e2e = spec.e2eMs ?? []
  const completed = spec.counts?.completed ?? ttft.length
  const histograms: BenchmarkResult['histograms'] = {}
  if (ttft.length > 0) histograms.ttftUs = encodedHistogramOf(ttft)
  if (tpot.length > 0) histograms.tpotUs = encodedHistogramOf(tpot)
  if (e2e.length > 0) histograms.e2eUs = encodedHistogramOf(e2e)
  if (spec.ttfoMs !== undefined && spec.ttfoMs.length > 0) histograms.ttfoUs = encodedHistogramOf(spec.ttfoMs)
  if (spec.itlPerTokenMs !== undefined && spec.itlPerTokenMs.length > 0)
    histograms.itlPerTokenUs = encodedHistogramOf(spec.itlPerTokenMs)
  return {
    schemaVersion: 2,
    startedAt: '2025-01-01T00:00:00.000Z',
    durationMs: spec.durationMs ?? 60_000,
    counts: { total: spec.counts?.total ?? completed, completed, failed: spec.counts?.failed ?? 0 },
    metrics: {
      ttftMs: summaryOf(ttft),
      tpotMs: summaryOf(tpot),
      itlMs: summaryOf([]),
      e2eMs: summaryOf(e2e),
      outputTokens: summaryOf(ttft.map(() => 128)),
      inputTokens: summaryOf(ttft.map(() => 512)),
      ...(spec.ttfoMs !== undefined ? { ttfoMs: summaryOf(spec.ttfoMs) } : {}),
      ...(spec.itlPerTokenMs !== undefined ? { itlPerTokenMs: summaryOf(spec.itlPerTokenMs) } : {}),
    },
    throughput: { requestsPerSec: 8.333, outputTokensPerSec: 1066.7, totalTokensPerSec: 5333.3, ...spec.throughput },
    errors: [],
    streaming: {
      streamed: true,
      evidence: 'probe',
      nonSseRequests: 0,
      burstRequests: 0,
      tokenCountEstimated: false,
      multiTokenChunks: 0,
      meanTokensPerChunk: 1,
    },
    client: { keptUp: spec.keptUp ?? true, warnings: spec.keptUp === false ? ['schedule lag p99 850 ms'] : [] },
    workload: {
      kind: 'synthetic',
      seed: 0,
      salt: null,
      requestedInputTokensMean: 512,
      requestedOutputTokensMean: 128,
      actualInputTokensMean: 512,
      actualOutputTokensMean: 128,
    },
    environment: spec.environment ?? environment(),
    config: spec.config ?? DEFAULT_CONFIG,
    histograms,
    warnings: [],
  }
}
