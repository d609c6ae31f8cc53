import { createServer, type Server } from 'node:http'
import { afterEach, describe, expect, test } from 'vitest'
import { startMetricsScraper } from '../../src/core/server/metrics/index.ts'

let server: Server | undefined
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = undefined
})

/** A /metrics endpoint that answers after `delayMs`; counts the scrapes it served. */
async function endpoint(
  delayMs: number,
): Promise<{ url: string; served: () => number; auth: () => string | undefined }> {
  let served = 0
  let auth: string | undefined
  server = createServer((req, res) => {
    auth = req.headers.authorization
    if (req.url !== '/metrics') return void res.writeHead(404).end()
    setTimeout(() => {
      served++
      res
        .writeHead(200, { 'content-type': 'text/plain; version=0.0.4' })
        .end(`# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine="0"} ${served}\n`)
    }, delayMs)
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, served: () => served, auth: () => auth }
}

describe('startMetricsScraper', () => {
  test('finds the endpoint, sends the key, scrapes every interval inside a window', async () => {
    const e = await endpoint(0)
    const start = await startMetricsScraper({
      urls: [`${e.url}/nothing`, `${e.url}/metrics`],
      intervalMs: 100,
      timeoutMs: 1000,
      headers: { authorization: 'Bearer k' },
    })
    if (!('scraper' in start)) throw new Error(start.note)
    expect(start.scraper.names.dialect).toBe('vllm')
    expect(e.auth()).toBe('Bearer k')
    // A plain 100 ms timer beside the scraper: on a busy machine both run late alike (5 ticks a
    // second with two CPU-bound processes beside the suite), so the scraper is held to what the
    // host allowed, not to the wall clock.
    let ticks = 0
    const reference = setInterval(() => ticks++, 100)
    await start.scraper.startWindow()
    await new Promise((resolve) => setTimeout(resolve, 1050))
    const scrapes = await start.scraper.endWindow()
    clearInterval(reference)
    // First, one on every interval tick, last: about ten on a quiet machine. A gap between two scrapes is one tick
    // of the reference (what the host allowed), unless the scrape before it was slow enough for the 5 % rule to
    // wait longer (19 times its duration): with two CPU hogs beside the suite that skipped up to 4 of 10 ticks. A
    // scraper every 200 ms after 1 ms scrapes would leave gaps of two ticks. The last gap too (a scraper that never
    // scraped between the first and the last would leave one gap of the whole window); beside two CPU hogs a first
    // scrape slow enough that the 5 % rule waits past the window leaves those two alone, rightly.
    expect(scrapes.length).toBeGreaterThanOrEqual(2)
    const period = 1050 / Math.max(1, ticks)
    for (let i = 1; i < scrapes.length; i++) {
      const before = scrapes[i - 1]!
      expect(scrapes[i]!.t - before.t).toBeLessThanOrEqual(19 * before.durationMs + 1.5 * period + 10)
    }
    expect(scrapes.length).toBeLessThanOrEqual(13)
    expect(scrapes.every((s) => s.exposition !== undefined)).toBe(true)
  })

  test('a slow endpoint is scraped less often: a scrape takes at most 5 % of the time between scrapes', async () => {
    const e = await endpoint(60)
    const start = await startMetricsScraper({
      urls: [`${e.url}/metrics`],
      intervalMs: 100,
      timeoutMs: 1000,
      headers: {},
    })
    if (!('scraper' in start)) throw new Error(start.note)
    await start.scraper.startWindow()
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const scrapes = await start.scraper.endWindow()
    // 60 ms a scrape allows one every 1.2 s: the first, at most one or two on the interval, the last (without the cap: about 12).
    expect(scrapes.length).toBeLessThanOrEqual(4)
    expect(scrapes.length).toBeGreaterThanOrEqual(2)
  })

  test('an endpoint that never answers is given up after one timeout (no second path tried), with one line', async () => {
    server = createServer(() => {})
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as { port: number }
    const began = performance.now()
    const start = await startMetricsScraper({
      urls: [`http://127.0.0.1:${port}/metrics`, `http://127.0.0.1:${port}/prometheus/metrics`],
      intervalMs: 1000,
      timeoutMs: 300,
      headers: {},
    })
    expect(performance.now() - began).toBeLessThan(600)
    expect(start).toEqual({
      note: expect.stringContaining(
        `No server metrics: http://127.0.0.1:${port}/metrics (no answer within 300 ms). Start`,
      ),
    })
    server.closeAllConnections()
  })
})
