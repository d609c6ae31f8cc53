/**
 * The embeddings and rerank APIs end to end against the simulator: each request is one forward pass
 * over its texts (prefill, then the step it ends in), answered in one JSON body. The client's
 * figures are checked against what the simulator did, request by request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runBenchmark } from '../../src/core/run.ts'
import { OptionsError } from '../../src/core/contract/errors.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'
import { startSimulator, type RunningSimulator } from '../../src/sim/index.ts'
import { startRefusingServer } from '../helpers/refusing-server.ts'

const PREFILL_BASE_MS = 4
const PREFILL_MS_PER_TOKEN = 0.05
const DECODE_BASE_MS = 3

describe('embeddings and rerank against the simulator', () => {
  let sim: RunningSimulator
  beforeAll(async () => {
    sim = await startSimulator({
      recordSchedule: true,
      seed: 5,
      prefillBaseMs: PREFILL_BASE_MS,
      prefillMsPerToken: PREFILL_MS_PER_TOKEN,
      decodeBaseMs: DECODE_BASE_MS,
      decodeMsPerSequence: 0,
    })
  })
  afterAll(async () => {
    await sim.close()
  })

  it.each(['embeddings', 'rerank'] as const)(
    "%s: every request answers its batch of texts; tokens are the server's; E2E is the modelled forward pass",
    async (api) => {
      sim.schedule.length = 0
      const result = await runBenchmark(
        {
          target: { baseUrl: sim.url, api },
          workload: { kind: 'synthetic', inputTokens: { mean: 60, stddev: 20, min: 20 }, batch: 4 },
          load: { concurrency: 1, requests: 12 },
          warmup: { requests: 1 },
          recordRequests: true,
          serverMetrics: false,
        },
        { skipGpu: true },
      )
      expect(result.counts).toEqual({ total: 12, completed: 12, failed: 0 })
      expect(result.errors).toEqual([])
      // Nothing about streaming or usage; a busy host may add a line about the client's own lateness.
      expect(result.warnings.filter((line) => !line.startsWith('Event-loop delay'))).toEqual([])
      expect(result.streaming).toMatchObject({ streamed: false, evidence: 'api', probeRequests: 1 })
      expect(result.metrics.ttftMs.count).toBe(0)
      expect(result.metrics.outputTokens.max).toBe(0)
      const records = result.requests as RequestRecord[]
      // The probe's and the warm-up's requests come first (concurrency 1: the n-th record is the n-th arrival).
      const entries = sim.schedule.slice(2)
      expect(entries).toHaveLength(12)
      const modelled: number[] = []
      const served: number[] = []
      records.forEach((record, i) => {
        const entry = entries[i]!
        expect(record.inputs).toBe(4)
        // usage.prompt_tokens, as the simulator counted them (rerank: the query beside each of the 4 documents).
        expect(record.inputTokens).toBe(entry.promptTokens)
        expect(record.usageReported).toBe(true)
        // The server's time from arrival to its answer is the modelled pass: prefill of every token, then a step.
        const serverMs = entry.finishedAt! - entry.arrivedAt
        const passMs = PREFILL_BASE_MS + PREFILL_MS_PER_TOKEN * entry.promptTokens + DECODE_BASE_MS
        modelled.push(passMs)
        served.push(serverMs)
        expect(serverMs).toBeGreaterThanOrEqual(passMs - 0.5)
        // The client's E2E holds the server's time and a loopback hop each way.
        expect(record.endAt - record.sentAt).toBeGreaterThanOrEqual(serverMs)
      })
      const meanModelled = modelled.reduce((sum, ms) => sum + ms, 0) / modelled.length
      // A busy host makes timers late, never early: the mean E2E exceeds the modelled pass, and the server's own
      // time (its steps late too, beside two CPU-bound processes: 25.1 ms against a 18.1 ms model) by a few ms of
      // loopback, unless the run itself says the client could not keep up.
      const meanServed = served.reduce((sum, ms) => sum + ms, 0) / served.length
      expect(result.metrics.e2eMs.mean).toBeGreaterThan(meanModelled)
      if (result.client.keptUp) expect(result.metrics.e2eMs.mean).toBeLessThan(meanServed + 6)
      const inputTokens = records.reduce((sum, r) => sum + r.inputTokens, 0)
      const seconds = result.durationMs / 1000
      expect(result.throughput.inputsPerSec).toBeCloseTo(48 / seconds, 6)
      expect(result.throughput.inputTokensPerSec).toBeCloseTo(inputTokens / seconds, 6)
      expect(result.throughput.totalTokensPerSec).toBeCloseTo(inputTokens / seconds, 6)
      expect(result.workload).toMatchObject({ batch: 4, requestedOutputTokensMean: null, actualOutputTokensMean: 0 })
    },
  )

  it('a failed answer is a failed request, in no latency: an HTTP 500, and a connection dropped before the answer', async () => {
    const faulty = await startSimulator({ seed: 2, faults: { errorEventRate: 0.3, dropConnectionRate: 0.2 } })
    try {
      const result = await runBenchmark(
        {
          target: { baseUrl: faulty.url, api: 'embeddings' },
          workload: { kind: 'synthetic', inputTokens: { mean: 16 }, batch: 2 },
          load: { concurrency: 2, requests: 40 },
          warmup: { requests: 0 },
          recordRequests: true,
          serverMetrics: false,
        },
        { skipGpu: true },
      )
      const failed = (result.requests ?? []).filter((r) => !r.ok)
      expect(failed.length).toBeGreaterThan(0)
      expect(result.counts.failed).toBe(failed.length)
      expect(result.metrics.e2eMs.count).toBe(result.counts.completed)
      const kinds = new Set(failed.map((r) => r.error?.kind))
      expect(kinds).toEqual(new Set(['http', 'network']))
      expect(failed.every((r) => r.inputs === undefined)).toBe(true)
    } finally {
      await faulty.close()
    }
  })

  it('a server that answers 501 (llama-server without --reranking) stops the run before the load, saying how to serve it', async () => {
    const server = await startRefusingServer(501, {
      error: {
        code: 501,
        message: 'This server does not support reranking. Start it with `--reranking`',
        type: 'not_supported_error',
      },
    })
    try {
      const error = await runBenchmark(
        {
          target: { baseUrl: server.baseUrl, api: 'rerank' },
          workload: { kind: 'synthetic', inputTokens: { mean: 8 } },
          load: { concurrency: 2, requests: 20 },
        },
        { skipGpu: true },
      ).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(OptionsError)
      expect((error as OptionsError).option).toBe('target.api')
      expect((error as Error).message).toContain('does not support reranking. Start it with `--reranking`')
      expect((error as Error).message).toContain(
        'Use an API the server serves (llama-server serves it when started with `--reranking`; vLLM with a reranking (cross-encoder) model)',
      )
      expect(server.posts).toBe(1)
    } finally {
      await server.close()
    }
  })
})
