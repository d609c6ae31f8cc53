import { describe, expect, test } from 'vitest'
import { OptionsError } from '../../src/core/contract/errors.ts'
import type { SloOptions } from '../../src/core/slo/index.ts'
import { checkSlo, formatSloChecks, validateSloOptions } from '../../src/core/slo/index.ts'
import type { BenchmarkResult, GpuStats } from '../../src/core/contract/result.ts'
import { lognormalSamples, makeResult, seededRandom, summaryOf } from '../helpers/baseline-fixtures.ts'

const samples = lognormalSamples(seededRandom(5), 400, 300, 0.3)
const p99 = summaryOf(samples).p99

function withGpus(result: BenchmarkResult, gpus: GpuStats[]): BenchmarkResult {
  return { ...result, gpu: { intervalMs: 100, gpus, samples: [] } }
}

describe('checkSlo', () => {
  test('a latency statistic is a maximum; the message names metric, value, limit and n', () => {
    const result = makeResult({ ttftMs: samples })
    // A mean, min and max are compared as measured; a token count has no histogram and is too.
    const all = checkSlo(result, { ttftMs: { mean: 1e6, min: 1e6, max: 1 }, outputTokens: { max: 128 } })
    expect(all.map((check) => [check.metric, check.statistic, check.status])).toEqual([
      ['ttftMs', 'mean', 'pass'],
      ['ttftMs', 'min', 'pass'],
      ['ttftMs', 'max', 'fail'],
      ['outputTokens', 'max', 'pass'],
    ])
    const [max] = checkSlo(result, { ttftMs: { max: 1 } })
    expect(max?.message).toBe(
      `ttftMs max = ${Number(summaryOf(samples).max.toPrecision(4))} ms exceeds the SLO maximum of 1 ms (n = 400 samples)`,
    )
  })

  test('a percentile passes on its 95% upper bound, fails on its lower bound, else names the requests it needs', () => {
    const result = makeResult({ ttftMs: samples })
    const shown = Number(p99.toPrecision(4))
    // Far above the p99: its upper bound (order statistic 399 of 400) is within the limit.
    const [pass] = checkSlo(result, { ttftMs: { p99: 2 * p99 } })
    expect(pass).toMatchObject({
      metric: 'ttftMs',
      statistic: 'p99',
      bound: 'max',
      measured: p99,
      n: 400,
      status: 'pass',
      unit: 'ms',
      interval: { confidence: 0.95 },
    })
    expect(pass?.message).toMatch(
      new RegExp(
        `^ttftMs p99 = ${shown} ms is within the SLO maximum of [\\d.]+ ms: its 95% upper bound is [\\d.]+ ms \\(n = 400 samples\\)$`,
      ),
    )
    expect(pass?.interval?.upper).toBeGreaterThanOrEqual(p99)
    // Far below it: the lower bound (order statistic 393) is beyond the limit.
    const [fail] = checkSlo(result, { ttftMs: { p99: p99 / 2 } })
    expect(fail?.status).toBe('fail')
    expect(fail?.message).toMatch(
      /exceeds the SLO maximum of [\d.]+ ms: its 95% lower bound is [\d.]+ ms \(n = 400 samples\)$/,
    )
    // At the p99 itself: the measured figure meets it (limits are inclusive), but 400 samples cannot show it.
    const [exact] = checkSlo(result, { ttftMs: { p99 } })
    expect(exact?.status).toBe('inconclusive')
    expect(exact?.message).toMatch(
      new RegExp(
        `^ttftMs p99 = ${shown} ms is within the SLO maximum of ${shown} ms, but not shown: its 95% upper bound is [\\d.]+ ms \\(n = 400\\); a run like this one `,
      ),
    )
    // Too few requests for any upper bound of a p99 (299 are needed): the message says how many would do.
    const few = makeResult({ ttftMs: samples.slice(0, 200) })
    const [small] = checkSlo(few, { ttftMs: { p99: 2 * p99 } })
    expect(small?.status).toBe('inconclusive')
    expect(small?.needed).toBe(299)
    expect(small?.message).toContain(
      'but not shown: 200 samples give no 95% upper bound (n = 200); a run like this one needs about 299 requests to decide',
    )
    // A lower confidence decides with fewer: 0.9^... p99 at 90% needs 230.
    const [lower] = checkSlo(makeResult({ ttftMs: samples.slice(0, 230) }), {
      ttftMs: { p99: 2 * p99 },
      confidence: 0.9,
    })
    expect(lower?.status).toBe('pass')
  })

  test('an empty distribution fails: the SLO cannot be shown to hold', () => {
    const result = makeResult({ ttftMs: [], counts: { total: 20, completed: 20 } })
    result.streaming.note = 'the server did not stream'
    const [check] = checkSlo(result, { ttftMs: { p99: 500 } })
    expect(check).toMatchObject({ status: 'fail', measured: null, n: 0 })
    expect(check?.message).toBe(
      'ttftMs p99: no samples in 20 requests (the server did not stream), so the SLO maximum of 500 ms cannot be shown to hold',
    )
  })

  test('throughput bounds', () => {
    const result = makeResult({ ttftMs: samples, throughput: { outputTokensPerSec: 1203.4 }, durationMs: 48_000 })
    const checks = checkSlo(result, { outputTokensPerSec: { min: 1500, max: 5000 }, requestsPerSec: { min: 1 } })
    expect(checks.map((check) => check.status)).toEqual(['fail', 'pass', 'pass'])
    expect(checks[0]?.message).toBe(
      'outputTokensPerSec = 1203 tok/s is below the SLO minimum of 1500 tok/s (n = 400 completed requests in 48 s)',
    )
  })

  test('error rate and count', () => {
    const result = makeResult({ ttftMs: samples, counts: { total: 400, completed: 394, failed: 6 } })
    const checks = checkSlo(result, { errors: { maxRate: 0.01, maxCount: 10 } })
    expect(checks.map((check) => [check.statistic, check.measured, check.status])).toEqual([
      ['maxRate', 0.015, 'fail'],
      ['maxCount', 6, 'pass'],
    ])
    expect(checks[0]?.message).toBe('error rate = 1.5% exceeds the SLO maximum of 1% (6 of 400 requests failed)')
    const none = makeResult({ counts: { total: 0, completed: 0, failed: 0 } })
    expect(checkSlo(none, { errors: { maxRate: 0.5 } })[0]?.status).toBe('fail')
  })

  test('GPU limits: the largest GPU for a maximum, the smallest for a minimum, energy summed; no telemetry is inconclusive', () => {
    const result = withGpus(makeResult({ ttftMs: samples }), [
      { index: 0, name: 'NVIDIA H200', memoryPeakMiB: 70_100, utilizationMeanPct: 91, energyPerOutputTokenJ: 0.3 },
      { index: 1, name: 'NVIDIA H200', memoryPeakMiB: 69_000, utilizationMeanPct: 78, energyPerOutputTokenJ: 0.25 },
    ])
    const slo: SloOptions = {
      gpu: { memoryPeakMiB: { max: 70_000 }, utilizationMeanPct: { min: 80 }, energyPerOutputTokenJ: { max: 0.6 } },
    }
    const checks = checkSlo(result, slo)
    expect(checks.map((check) => [check.metric, check.measured, check.status])).toEqual([
      ['gpu.memoryPeakMiB', 70_100, 'fail'],
      ['gpu.utilizationMeanPct', 78, 'fail'],
      ['gpu.energyPerOutputTokenJ', 0.55, 'pass'],
    ])
    expect(checks[0]?.message).toBe(
      'gpu.memoryPeakMiB = 70100 MiB (largest of 2 GPUs) exceeds the SLO maximum of 70000 MiB',
    )
    const [missing] = checkSlo(makeResult({ ttftMs: samples }), { gpu: { memoryPeakMiB: { max: 70_000 } } })
    expect(missing).toMatchObject({ status: 'inconclusive', measured: null })
    expect(missing?.message).toBe(
      'gpu.memoryPeakMiB: not measured (no GPU telemetry (nvidia-smi not found where the bench ran))',
    )
  })

  test('goodput share needs the goodput option', () => {
    expect(checkSlo(makeResult({ ttftMs: samples }), { goodput: { minShare: 0.9 } })[0]?.status).toBe('inconclusive')
    const result = {
      ...makeResult({ ttftMs: samples }),
      goodput: { limits: { ttftMs: 400 }, goodRequests: 380, share: 0.95, requestsPerSec: 6.3 },
    }
    expect(checkSlo(result, { goodput: { minShare: 0.9 } })[0]).toMatchObject({ status: 'pass', measured: 0.95 })
  })

  test('formatSloChecks prints one aligned row per limit and the messages of the problems', () => {
    const result = makeResult({
      ttftMs: samples,
      throughput: { outputTokensPerSec: 1203.4 },
      counts: { total: 400, completed: 400, failed: 0 },
    })
    const text = formatSloChecks(
      checkSlo(result, { ttftMs: { p50: 500 }, outputTokensPerSec: { min: 1500 }, errors: { maxRate: 0.01 } }),
    )
    expect(text).toMatchInlineSnapshot(`
      "SLO: FAIL (1 fail, 2 pass)
        limit                 measured  bound            n  status
        ttftMs p50            296.4 ms  <= 500 ms      400  PASS
        outputTokensPerSec  1203 tok/s  >= 1500 tok/s  400  FAIL
        errors maxRate              0%  <= 1%          400  PASS

        outputTokensPerSec = 1203 tok/s is below the SLO minimum of 1500 tok/s (n = 400 completed requests in 60 s)"
    `)
  })
})

describe('validateSloOptions', () => {
  const optionError = (slo: unknown): OptionsError => {
    try {
      validateSloOptions(slo as SloOptions)
    } catch (error) {
      if (error instanceof OptionsError) return error
      throw error
    }
    throw new Error('expected an OptionsError')
  }

  test('names the option and lists the valid choices', () => {
    expect(optionError({ ttft: { p99: 500 } }).message).toBe(
      'Invalid option `slo.ttft`: is not an option of `slo`. Did you mean `slo.ttftMs`? Options: ttftMs, ttfoMs, tpotMs, itlMs, itlPerTokenMs, e2eMs, outputTokens, inputTokens, outputTokensPerSec, requestsPerSec, totalTokensPerSec, errors, gpu, server, goodput, confidence.',
    )
    expect(optionError({ ttftMs: { p98: 500 } }).message).toContain(
      'Options: p50, p90, p95, p99, p999, mean, min, max.',
    )
    expect(optionError({ ttftMs: { p99: -1 } }).option).toBe('slo.ttftMs.p99')
    expect(optionError({ ttftMs: 500 }).message).toContain('Write e.g. ttftMs: { p99: 500 }')
    expect(optionError({ errors: { maxRate: 2 } }).message).toContain('Use a number from 0 to 1')
    expect(optionError({ gpu: { memoryPeak: { max: 1 } } }).option).toBe('slo.gpu.memoryPeak')
    expect(optionError({ outputTokensPerSec: { minimum: 1 } }).message).toContain('Options: min, max.')
    expect(() => checkSlo(makeResult(), { ttftMs: { p98: 1 } } as never)).toThrow(OptionsError)
    expect(optionError({ confidence: 0.4 }).message).toContain('0.4 is not a confidence from 0.5 to 0.999')
  })
})
