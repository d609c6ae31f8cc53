import { describe, expect, onTestFinished, test, vi } from 'vitest'
import { simulatorCapacity, startSimulator } from '../../src/sim/index.ts'
import type { RunningSimulator, SimulatorOptions, SimulatorScheduleEntry } from '../../src/sim/index.ts'
import { chatBody, eventJson, post } from '../helpers/sim-test-client.ts'

async function started(options: SimulatorOptions): Promise<RunningSimulator> {
  const sim = await startSimulator(options)
  onTestFinished(() => sim.close())
  return sim
}

function burst(sim: RunningSimulator, requests: number, outputTokens: number, prompt = 'p') {
  return Promise.all(
    Array.from({ length: requests }, (_, i) =>
      post(
        `${sim.url}/v1/chat/completions`,
        chatBody(`${prompt} ${i}`, { max_tokens: outputTokens, ignore_eos: true }),
      ),
    ),
  )
}

/** Output tokens per second over the whole burst, from the simulator's own log. */
function throughput(schedule: SimulatorScheduleEntry[]): number {
  const start = Math.min(...schedule.map((e) => e.arrivedAt))
  const end = Math.max(...schedule.map((e) => e.finishedAt ?? NaN))
  const tokens = schedule.reduce((sum, e) => sum + e.tokenTimes.length, 0)
  return (tokens / (end - start)) * 1000
}

function meanTtft(schedule: SimulatorScheduleEntry[]): number {
  return schedule.reduce((sum, e) => sum + ((e.firstTokenAt ?? NaN) - e.arrivedAt), 0) / schedule.length
}

/** Most entries holding a slot at once (prefill start to finish). */
function maxOverlap(schedule: SimulatorScheduleEntry[]): number {
  const edges = schedule.flatMap((e) => [
    { t: e.prefillStartedAt ?? NaN, d: 1 },
    { t: e.finishedAt ?? NaN, d: -1 },
  ])
  edges.sort((a, b) => a.t - b.t || a.d - b.d)
  let now = 0
  let max = 0
  for (const edge of edges) max = Math.max(max, (now += edge.d))
  return max
}

// Small delays keep the tests short; the shape of the results does not depend on the scale.
const fast = {
  prefillBaseMs: 1,
  prefillMsPerToken: 0,
  decodeBaseMs: 4,
  decodeMsPerSequence: 0.25,
  recordSchedule: true,
} satisfies SimulatorOptions

describe('continuous batching', () => {
  test('maxRunningSequences 4 and 12 concurrent requests: 4 run, 8 queue until slots free up', async () => {
    const sim = await started({ ...fast, decodeBaseMs: 3, maxRunningSequences: 4 })
    let maxRunning = 0
    let maxQueued = 0
    const poll = setInterval(() => {
      const s = sim.stats()
      maxRunning = Math.max(maxRunning, s.running)
      maxQueued = Math.max(maxQueued, s.queued)
    }, 1)
    onTestFinished(() => clearInterval(poll))
    const responses = await burst(sim, 12, 40)
    clearInterval(poll)

    expect(responses.every((r) => r.status === 200 && r.events.at(-1)?.data === '[DONE]')).toBe(true)
    expect(maxRunning).toBe(4)
    expect(maxQueued).toBe(8)
    expect(sim.stats()).toEqual({ running: 0, queued: 0, completed: 12 })

    const schedule = sim.schedule
    expect(schedule).toHaveLength(12)
    expect(maxOverlap(schedule)).toBe(4)
    const byStart = [...schedule].sort((a, b) => (a.prefillStartedAt ?? 0) - (b.prefillStartedAt ?? 0))
    const finishes = schedule.map((e) => e.finishedAt ?? NaN).sort((a, b) => a - b)
    // The first four start before anything finishes; each later one only after an earlier one has finished.
    for (const entry of byStart.slice(0, 4)) expect(entry.prefillStartedAt).toBeLessThan(finishes[0] ?? NaN)
    for (const [i, entry] of byStart.slice(4).entries()) {
      expect(entry.prefillStartedAt).toBeGreaterThanOrEqual(finishes[i] ?? NaN)
      expect(entry.firstTokenAt).toBeGreaterThan(finishes[i] ?? NaN)
    }
  })

  test('a sweep of concurrency: throughput rises then flattens at the batch size, TTFT rises once requests queue', async () => {
    const options = { ...fast, maxRunningSequences: 16 }
    const results: Record<number, { tput: number; ttft: number }> = {}
    for (const concurrency of [1, 4, 16, 64]) {
      const sim = await started(options)
      await burst(sim, concurrency, 32)
      expect(sim.schedule).toHaveLength(concurrency)
      expect(sim.schedule.every((e) => e.tokenTimes.length === 32)).toBe(true)
      results[concurrency] = { tput: throughput(sim.schedule), ttft: meanTtft(sim.schedule) }
      await sim.close()
    }
    const tput = (c: number) => results[c]?.tput ?? NaN
    const ttft = (c: number) => results[c]?.ttft ?? NaN
    expect(tput(4)).toBeGreaterThan(1.5 * tput(1))
    expect(tput(16)).toBeGreaterThan(2 * tput(1))
    expect(tput(64)).toBeLessThan(1.3 * tput(16))
    expect(ttft(64)).toBeGreaterThan(ttft(16))
    // The plateau cannot beat the model's capacity (timers only ever fire late).
    const capacity = simulatorCapacity(options, { inputTokens: 3, outputTokens: 32 })
    expect(tput(64)).toBeLessThan(capacity.maxOutputTokensPerSec * 1.05)
    expect(tput(64)).toBeGreaterThan(capacity.maxOutputTokensPerSec * 0.5)
  })

  test('schedule times agree with what an in-process client receives', async () => {
    const sim = await started({ ...fast, decodeBaseMs: 5, decodeMsPerSequence: 0 })
    const res = await post(`${sim.url}/v1/chat/completions`, chatBody('hello', { max_tokens: 60, ignore_eos: true }))
    const entry = sim.schedule[0] as SimulatorScheduleEntry
    const received = res.events.slice(1, 61).map((e) => e.at) // token events: after the role chunk
    expect(entry.chunkTimes).toHaveLength(60)
    expect(received).toHaveLength(60)
    const lags = received.map((at, i) => at - (entry.chunkTimes[i] ?? NaN))
    // Causality: nothing arrives before the simulator logged sending it.
    expect(Math.min(...lags)).toBeGreaterThanOrEqual(0)
    lags.sort((a, b) => a - b)
    expect(lags[30]).toBeLessThan(5)
    expect(entry.firstTokenAt).toBe(entry.chunkTimes[0])
    expect(entry.prefillEndedAt).toBe(entry.firstTokenAt)
    // Steps never end before their planned time. (Drift compensation is checked exactly on a virtual
    // clock in sim-scheduler.test.ts; here only a loose bound that holds on a loaded machine.)
    expect((entry.chunkTimes[59] ?? NaN) - (entry.prefillStartedAt ?? NaN)).toBeGreaterThanOrEqual(1 + 60 * 5 - 0.1)
    const meanGap = ((entry.chunkTimes[59] ?? NaN) - (entry.chunkTimes[0] ?? NaN)) / 59
    expect(meanGap).toBeLessThan(5 * 2)
    // TTFT covers the prefill (1 ms) and one decode step (5 ms).
    expect((entry.firstTokenAt ?? NaN) - (entry.prefillStartedAt ?? NaN)).toBeGreaterThanOrEqual(6 * 0.98)
  })

  test('speedFactor scales the modeled delays; setSpeedFactor applies to later steps', async () => {
    const sim = await started({ ...fast, decodeBaseMs: 2, decodeMsPerSequence: 0, prefillBaseMs: 0 })
    await burst(sim, 1, 20)
    sim.setSpeedFactor(4)
    await burst(sim, 1, 20)
    // Per chunk, from the start of the request's first step to its last token.
    const [nominal, slow] = sim.schedule.map((e) => ((e.finishedAt ?? NaN) - (e.prefillStartedAt ?? NaN)) / 20)
    expect(nominal).toBeGreaterThanOrEqual(2 - 0.01)
    expect(nominal).toBeLessThan(8)
    expect(slow).toBeGreaterThanOrEqual(8 - 0.01)
    expect(() => sim.setSpeedFactor(-1)).toThrow(/speedFactor/)
  })

  test('speedFactor 0 serves 200 concurrent requests, batched and interleaved', async () => {
    const sim = await started({ speedFactor: 0, maxRunningSequences: 32, recordSchedule: true })
    const responses = await burst(sim, 200, 16)
    expect(responses.filter((r) => r.status === 200 && r.events.at(-1)?.data === '[DONE]')).toHaveLength(200)
    expect(responses.every((r) => eventJson(r).at(-1)?.usage !== undefined)).toBe(true)
    expect(sim.stats()).toEqual({ running: 0, queued: 0, completed: 200 })
    // Steps yield to the event loop, so streams overlap, and never more than the batch allows.
    const overlap = maxOverlap(sim.schedule)
    expect(overlap).toBeGreaterThan(1)
    expect(overlap).toBeLessThanOrEqual(32)
    expect(new Set(sim.schedule.map((e) => e.id)).size).toBe(200)
  })
})

describe('client disconnect', () => {
  test('aborting a running stream frees its slot; aborting a queued request leaves the queue', async () => {
    const sim = await started({ ...fast, decodeBaseMs: 5, maxRunningSequences: 1 })
    const running = new AbortController()
    const queued = new AbortController()
    let firstToken!: () => void
    const gotFirstToken = new Promise<void>((resolve) => (firstToken = resolve))
    const a = post(`${sim.url}/v1/chat/completions`, chatBody('a', { max_tokens: 10_000, ignore_eos: true }), {
      signal: running.signal,
      onEvent: (e) => e.data.includes('"content":" ') && firstToken(),
    }).catch((error: unknown) => error)
    await gotFirstToken
    const b = post(`${sim.url}/v1/chat/completions`, chatBody('b', { max_tokens: 10_000, ignore_eos: true }), {
      signal: queued.signal,
    }).catch((error: unknown) => error)
    await vi.waitFor(() => expect(sim.stats()).toMatchObject({ running: 1, queued: 1 }))

    queued.abort()
    await vi.waitFor(() => expect(sim.stats()).toMatchObject({ running: 1, queued: 0 }))
    running.abort()
    await vi.waitFor(() => expect(sim.stats()).toMatchObject({ running: 0, queued: 0, completed: 0 }))
    await Promise.all([a, b])
    expect(sim.schedule.map((e) => e.fault)).toEqual(['client-disconnect', 'client-disconnect'])
    expect(sim.schedule[0]?.tokenTimes.length).toBeLessThan(10_000)
    expect(sim.schedule[1]?.prefillStartedAt).toBeUndefined()

    // The freed slot serves the next request.
    const next = await post(`${sim.url}/v1/chat/completions`, chatBody('c', { max_tokens: 3, ignore_eos: true }))
    expect(next.events.at(-1)?.data).toBe('[DONE]')
  })
})

describe('simulatorCapacity', () => {
  test('follows the documented formula', () => {
    const options = {
      maxRunningSequences: 8,
      prefillBaseMs: 2,
      prefillMsPerToken: 0.01,
      decodeBaseMs: 10,
      decodeMsPerSequence: 0.5,
      speedFactor: 2,
    }
    const c = simulatorCapacity(options, { inputTokens: 100, outputTokens: 50 })
    const prefill = 2 * (2 + 0.01 * 100) // 6 ms
    const step8 = 2 * (10 + 0.5 * 8) // 28 ms
    const step1 = 2 * (10 + 0.5) // 21 ms
    expect(c.prefillMs).toBeCloseTo(prefill)
    expect(c.fullBatchStepMs).toBeCloseTo(step8)
    expect(c.maxRequestsPerSec).toBeCloseTo((1000 * 8) / (50 * step8 + 8 * prefill))
    expect(c.maxOutputTokensPerSec).toBeCloseTo(c.maxRequestsPerSec * 50)
    expect(c.maxTotalTokensPerSec).toBeCloseTo(c.maxRequestsPerSec * 150)
    expect(c.saturationConcurrency).toBe(8)
    expect(c.singleStream.ttftMs).toBeCloseTo(prefill + step1)
    expect(c.singleStream.tpotMs).toBeCloseTo(step1)
    expect(c.singleStream.e2eMs).toBeCloseTo(prefill + 50 * step1)
  })

  test('counts chunks with tokensPerChunk, is infinite at speed 0, rejects bad shapes', () => {
    const spec = simulatorCapacity({ tokensPerChunk: 4 }, { inputTokens: 0, outputTokens: 10 })
    expect(spec.chunksPerRequest).toBe(3)
    expect(simulatorCapacity({ speedFactor: 0 }, { inputTokens: 1, outputTokens: 1 }).maxOutputTokensPerSec).toBe(
      Infinity,
    )
    expect(() => simulatorCapacity({}, { inputTokens: 1, outputTokens: 0 })).toThrow(/outputTokens/)
    expect(() => simulatorCapacity({ maxRunningSequences: 0 }, { inputTokens: 1, outputTokens: 1 })).toThrow(
      /maxRunningSequences/,
    )
  })
})
