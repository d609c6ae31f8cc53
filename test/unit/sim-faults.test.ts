import { describe, expect, onTestFinished, test, vi } from 'vitest'
import { startSimulator } from '../../src/sim/index.ts'
import type { RunningSimulator, SimulatorOptions } from '../../src/sim/index.ts'
import { chatBody, chunkText, eventJson, post } from '../helpers/sim-test-client.ts'

async function started(options: SimulatorOptions): Promise<RunningSimulator> {
  const sim = await startSimulator({ recordSchedule: true, ...options })
  onTestFinished(() => sim.close())
  return sim
}

const chat = (sim: RunningSimulator, maxTokens = 10, content = 'x') =>
  post(`${sim.url}/v1/chat/completions`, chatBody(content, { max_tokens: maxTokens, ignore_eos: true }))

/** Content-bearing chunks of a response. */
const contentChunks = (events: Array<Record<string, unknown>>) => events.filter((e) => (chunkText(e) ?? '') !== '')

describe('faults', () => {
  test.each([429, 500] as const)('httpErrorRate 1 with status %i: JSON error before any streaming', async (status) => {
    const sim = await started({ speedFactor: 0, faults: { httpErrorRate: 1, httpErrorStatus: status } })
    const res = await chat(sim)
    expect(res.status).toBe(status)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(JSON.parse(res.text)).toMatchObject({
      error: {
        code: status,
        type: status === 429 ? 'RateLimitError' : 'InternalServerError',
        message: expect.any(String),
      },
    })
    if (status === 429) expect(res.headers.get('retry-after')).toBe('1')
    expect(sim.schedule[0]).toMatchObject({ fault: `http-${status}`, tokenTimes: [] })
    expect(sim.stats()).toEqual({ running: 0, queued: 0, completed: 0 })
  })

  test('dropConnectionRate 1: the connection is destroyed halfway through the output', async () => {
    const sim = await started({ speedFactor: 0, faults: { dropConnectionRate: 1 } })
    const res = await chat(sim, 10)
    expect(res.status).toBe(200)
    expect(res.error).toBeInstanceOf(Error)
    expect(res.events.some((e) => e.data === '[DONE]')).toBe(false)
    expect(contentChunks(eventJson(res))).toHaveLength(5)
    expect(sim.schedule[0]).toMatchObject({ fault: 'drop-connection' })
    expect(sim.schedule[0]?.tokenTimes).toHaveLength(5)
    await vi.waitFor(() => expect(sim.stats()).toEqual({ running: 0, queued: 0, completed: 0 }))
  })

  test('errorEventRate 1: an error event mid-stream, then the stream ends without [DONE]', async () => {
    const sim = await started({ speedFactor: 0, faults: { errorEventRate: 1 } })
    const res = await chat(sim, 10)
    expect(res.status).toBe(200)
    expect(res.error).toBeUndefined()
    const events = eventJson(res)
    expect(contentChunks(events)).toHaveLength(5)
    expect(events.at(-1)).toEqual({ error: { message: expect.any(String), type: 'InternalServerError', code: 500 } })
    expect(res.events.some((e) => e.data === '[DONE]')).toBe(false)
    expect(sim.schedule[0]).toMatchObject({ fault: 'error-event' })
    expect(sim.stats().running).toBe(0)
  })

  test('errorEventRate 1 on a non-streaming request: a 500 JSON error', async () => {
    const sim = await started({ speedFactor: 0, faults: { errorEventRate: 1 } })
    const res = await fetch(`${sim.url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({ prompt: 'x', max_tokens: 6 }),
    })
    expect(res.status).toBe(500)
    expect(await res.json()).toMatchObject({ error: { code: 500, type: 'InternalServerError' } })
  })

  test('stallRate 1: the stream pauses stallMs halfway (even at speed 0), then completes', async () => {
    const sim = await started({ speedFactor: 0, faults: { stallRate: 1, stallMs: 150 } })
    const res = await chat(sim, 10)
    expect(res.events.at(-1)?.data).toBe('[DONE]')
    expect(contentChunks(eventJson(res))).toHaveLength(10)
    const times = sim.schedule[0]?.tokenTimes ?? []
    const gaps = times.slice(1).map((t, i) => t - (times[i] ?? NaN))
    // The pause sits between token 5 and token 6, and lasts at least stallMs.
    const longest = gaps.indexOf(Math.max(...gaps))
    expect(longest).toBe(4)
    expect(gaps[4]).toBeGreaterThanOrEqual(150)
    expect(sim.schedule[0]?.fault).toBe('stall')
    expect(sim.stats()).toMatchObject({ running: 0, completed: 1 })
  })

  test('a stalled sequence keeps its slot while others decode; an arrival during the stall is served', async () => {
    const sim = await started({ speedFactor: 0, maxRunningSequences: 2, faults: { stallRate: 1, stallMs: 200 } })
    const first = chat(sim, 4, 'first')
    await vi.waitFor(() => expect(sim.schedule[0]?.fault).toBe('stall'))
    expect(sim.stats()).toMatchObject({ running: 1, queued: 0 })
    // The second request stalls too (rate 1), but must not wait for the first one's stall to end.
    const second = chat(sim, 4, 'second')
    await vi.waitFor(() => expect(sim.schedule[1]?.fault).toBe('stall'))
    const [a, b] = await Promise.all([first, second])
    expect(a.events.at(-1)?.data).toBe('[DONE]')
    expect(b.events.at(-1)?.data).toBe('[DONE]')
    expect(sim.schedule[1]?.firstTokenAt).toBeLessThan(sim.schedule[0]?.finishedAt ?? NaN)
  })

  test('a rate between 0 and 1 hits a reproducible subset of requests', async () => {
    const faultsOf = async () => {
      const sim = await started({ speedFactor: 0, seed: 3, faults: { httpErrorRate: 0.5, httpErrorStatus: 500 } })
      const statuses: number[] = []
      for (let i = 0; i < 20; i++) statuses.push((await chat(sim, 2, `r${i}`)).status)
      return statuses
    }
    const a = await faultsOf()
    const b = await faultsOf()
    expect(b).toEqual(a)
    expect(a.filter((s) => s === 500).length).toBeGreaterThan(2)
    expect(a.filter((s) => s === 200).length).toBeGreaterThan(2)
  })

  test('invalid fault options are rejected up front', async () => {
    await expect(startSimulator({ faults: { dropConnectionRate: 2 } })).rejects.toThrow(/faults\.dropConnectionRate/)
    await expect(startSimulator({ maxRunningSequences: 0 })).rejects.toThrow(/maxRunningSequences/)
  })
})
