/*
 * LoadGen's early-stopping criterion, checked against LoadGen's own output.
 *
 * Source of the formula: mlcommons/inference, loadgen/early_stopping.cc (MinPassingQueriesFinder,
 * odds = BetaRegularized[p - d, h, 1 + t], find_min_passing) and loadgen/results.cc
 * (PerformanceSummary::EarlyStopping, SingleStream and Server branches, confidence 0.99,
 * tolerance 0); the statistics are derived in the MLPerf Inference rules
 * (mlcommons/inference_policies, inference_rules.adoc, appendix "Early Stopping Criterion").
 *
 * Worked examples: the "Early Stopping Result" block LoadGen prints in mlperf_log_summary.txt for
 * SingleStream runs ("Processed at least 64 queries (N)", "Would discard K highest latency
 * queries", "Not enough queries processed for 99th percentile ... at least 662 total queries"):
 * - N = 201, discard 9, 99th needs 662: GPT-J SingleStream in the MLCommons CM guide for MLPerf
 *   inference v3.1, output of ctuning/mlperf_inference_submissions_v3.1 open/cTuning/results/
 *   amd_zen4_workstation-reference-gpu-pytorch-v2.0.1-default_config/gptj-99/singlestream/
 *   performance/run_1/mlperf_log_summary.txt;
 * - N = 708, discard 51, and a 99th-percentile estimate equal to the maximum latency (10952369 ns
 *   = "Max latency"), so nothing discarded at p99: a Modular benchmarking test fixture's log;
 * - N = 79944, discard 7796: Krai/Qualcomm BERT-99 SingleStream results (MLPerf inference v3.0);
 * - N = 659, discard 47, 99th needs 662: a MobileNet/onnxruntime SingleStream summary quoted in a
 *   2025 MLPerf inference tutorial (blog post "MLPerf使用");
 * - N = 100, discard 2: a LoadGen summary of a run that exited early (min queries not met).
 */
import { describe, expect, it } from 'vitest'
import {
  earlyStoppingEstimate,
  loadgenOdds,
  loadgenPercentile,
  MinPassingQueriesFinder,
  serverEarlyStopping,
} from '../../src/core/sweep/early-stopping.ts'

/** P(X <= t) for X ~ Binomial(h + t, 1 - p), summed term by term in log space: independent of the beta-function route. */
function binomialCdf(h: number, t: number, p: number): number {
  const n = h + t
  let logChoose = 0
  let sum = 0
  for (let k = 0; k <= t; k++) {
    if (k > 0) logChoose += Math.log(n - k + 1) - Math.log(k)
    sum += Math.exp(logChoose + k * Math.log(1 - p) + (n - k) * Math.log(p))
  }
  return sum
}

/** Latencies 1..n in a scrambled order (the estimate must sort them itself). */
function scrambled(n: number): number[] {
  return Array.from({ length: n }, (_, i) => ((i * 7919) % n) + 1)
}

describe('LoadGen early stopping', () => {
  it.each([
    [100, 2],
    [201, 9],
    [659, 47],
    [708, 51],
    [79944, 7796],
  ])('SingleStream p90 with %i queries discards %i, as LoadGen printed', (queries, discarded) => {
    const estimate = earlyStoppingEstimate(scrambled(queries), 0.9)
    expect(estimate).toMatchObject({ ok: true, queries, minQueries: 64, discarded })
    // sorted[queries - t] with t = discarded + 1: the (discarded + 1)-th highest latency.
    if (estimate.ok) expect(estimate.estimate).toBe(queries - discarded)
  })

  it('needs 64 queries for a p90 estimate and 662 for a p99 one, as LoadGen says', () => {
    expect(earlyStoppingEstimate(scrambled(63), 0.9)).toMatchObject({ ok: false, minQueries: 64 })
    expect(earlyStoppingEstimate(scrambled(64), 0.9)).toMatchObject({ ok: true, discarded: 0, estimate: 64 })
    for (const queries of [201, 659]) {
      const p99 = earlyStoppingEstimate(scrambled(queries), 0.99)
      expect(p99).toMatchObject({ ok: false, minQueries: 662 })
      if (!p99.ok) expect(p99.message).toContain('at least 662 queries')
    }
    // 708 queries: LoadGen's p99 estimate was the maximum latency, i.e. nothing discarded.
    expect(earlyStoppingEstimate(scrambled(708), 0.99)).toMatchObject({ ok: true, discarded: 0, estimate: 708 })
  })

  it('finds the least passing h for each t: odds(h) < 1 - c <= odds(h - 1), by an independent binomial sum', () => {
    for (const p of [0.9, 0.99]) {
      const finder = new MinPassingQueriesFinder()
      for (let t = 0; t <= 40; t++) {
        const h = finder.find(t, p, 0, 0.99)
        expect(binomialCdf(h, t, p)).toBeLessThan(0.01)
        expect(binomialCdf(h - 1, t, p)).toBeGreaterThanOrEqual(0.01)
        expect(loadgenOdds(h, t, p, 0)).toBeCloseTo(binomialCdf(h, t, p), 12)
      }
    }
  })

  it('gives the same h whatever order the finder is asked in (its cache only narrows the search)', () => {
    const ascending = new MinPassingQueriesFinder()
    const expected = Array.from({ length: 30 }, (_, t) => ascending.find(t, 0.99, 0, 0.99))
    const scattered = new MinPassingQueriesFinder()
    for (const t of [17, 3, 29, 0, 11, 24, 8]) expect(scattered.find(t, 0.99, 0, 0.99)).toBe(expected[t])
  })

  it('passes the Server check with h + t queries and not one fewer', () => {
    // p99, no query over the limit: h(0) = ceil(ln 0.01 / ln 0.99) = 459.
    expect(serverEarlyStopping(new Array(459).fill(10), 100, 0.99)).toEqual({
      ok: true,
      queries: 459,
      overLatency: 0,
      requiredQueries: 459,
    })
    expect(serverEarlyStopping(new Array(458).fill(10), 100, 0.99).ok).toBe(false)
    // One over the limit: h(1) + 1 = 662, the count LoadGen asks of a p99 estimate.
    const withOne = [...new Array(661).fill(10), 101]
    expect(serverEarlyStopping(withOne, 100, 0.99)).toEqual({
      ok: true,
      queries: 662,
      overLatency: 1,
      requiredQueries: 662,
    })
    expect(serverEarlyStopping(withOne.slice(1), 100, 0.99).ok).toBe(false)
    // A latency equal to the limit is not over it (LoadGen counts latency > target).
    expect(serverEarlyStopping([...new Array(458).fill(10), 100], 100, 0.99).overLatency).toBe(0)
  })

  it('reads percentiles at sorted[floor(n * p)], as LoadGen', () => {
    const sorted = Array.from({ length: 10 }, (_, i) => i + 1)
    expect(loadgenPercentile(sorted, 0.9)).toBe(10)
    expect(loadgenPercentile(sorted, 0.5)).toBe(6)
    expect(loadgenPercentile(sorted.slice(0, 7), 0.99)).toBe(7)
    expect(loadgenPercentile([], 0.9)).toBeUndefined()
  })
})
