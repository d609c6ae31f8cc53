/** Sweep results built from synthetic benchmark results, for the sweep unit tests. */
import { curvePointOf } from '../../src/core/sweep/curve-point.ts'
import { findSaturation } from '../../src/core/sweep/saturation.ts'
import { SWEEP_SCHEMA_VERSION, type SweepResult } from '../../src/core/sweep/sweep-result.ts'
import { DEFAULT_CONFIG, lognormalSamples, makeResult, seededRandom } from './baseline-fixtures.ts'

/** One point: swept value, output tokens/s and median TTFT (ms). */
export interface PointSpec {
  value: number
  outputTokensPerSec: number
  ttftMedianMs?: number
  valid?: boolean
}

/** A concurrency sweep whose points have the given throughputs; `extra` goes into its config. */
export function makeSweep(
  specs: PointSpec[],
  extra: Record<string, unknown> = { sweep: { concurrency: specs.map((spec) => spec.value) } },
): SweepResult {
  const points = specs.map((spec, order) => {
    const random = seededRandom(order + 1)
    const ttft = lognormalSamples(random, 200, spec.ttftMedianMs ?? 50, 0.3)
    const result = makeResult({
      ttftMs: ttft,
      tpotMs: lognormalSamples(random, 200, 10, 0.1),
      e2eMs: ttft.map((value) => value + 1270),
      throughput: {
        outputTokensPerSec: spec.outputTokensPerSec,
        requestsPerSec: spec.outputTokensPerSec / 128,
        totalTokensPerSec: spec.outputTokensPerSec * 5,
      },
      config: { ...DEFAULT_CONFIG, load: { concurrency: spec.value, requests: 200 } },
    })
    return {
      value: spec.value,
      order,
      result,
      ...(spec.valid !== undefined ? { valid: spec.valid, reasons: spec.valid ? [] : ['p99 TTFT over'] } : {}),
    }
  })
  const curve = points.map((point) => curvePointOf(point.value, point.result, point.valid))
  const sweep: SweepResult = {
    schemaVersion: SWEEP_SCHEMA_VERSION,
    kind: 'sweep',
    axis: 'concurrency',
    startedAt: '2025-01-01T00:00:00.000Z',
    durationMs: 1000,
    points,
    curve,
    config: {
      workload: DEFAULT_CONFIG.workload,
      target: { api: 'chat', model: 'meta-llama/Llama-3.1-8B-Instruct' },
      load: { requests: 200 },
      ...extra,
    },
    warnings: [],
  }
  const knee = findSaturation(curve)
  if (knee) sweep.knee = knee
  return sweep
}
