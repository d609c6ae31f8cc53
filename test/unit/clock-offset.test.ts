import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { measureClockOffset } from '../../src/core/client/clock-offset.ts'

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))))
})

/** A server on 127.0.0.1 whose `Date` header comes from `date()` (Node's own is turned off). */
async function serve(date: () => string | undefined): Promise<string> {
  const server = createServer((_req, res) => {
    res.sendDate = false
    const value = date()
    res.writeHead(200, { 'content-type': 'application/json', ...(value ? { date: value } : {}) })
    res.end('{"data":[]}')
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('measureClockOffset', () => {
  it('finds a server clock 3456 ms ahead from its whole-second Date headers, to within a few round trips, and says how well', async () => {
    const url = await serve(() => new Date(Date.now() + 3456).toUTCString())
    const clock = await measureClockOffset(url)
    if (!('offsetMs' in clock)) throw new Error(clock.note)
    expect(clock.probes).toBe(25)
    // The probes' phases cover the server's second: the interval narrows from 1000 ms to tens.
    expect(clock.accuracyMs).toBeLessThan(60)
    expect(Math.abs(clock.offsetMs - 3456)).toBeLessThanOrEqual(clock.accuracyMs + 2)
  })

  it('says why when the server sends no Date, or dates that no one clock explains', async () => {
    const none = await measureClockOffset(await serve(() => undefined), { probes: 3, spacingMs: 1 })
    expect(none).toEqual({ note: 'the server sent no Date header in 3 requests' })
    let flip = 0
    const broken = await measureClockOffset(
      await serve(() => new Date(Date.now() + (flip++ % 2) * 5000).toUTCString()),
      { probes: 4, spacingMs: 1 },
    )
    expect('note' in broken && broken.note).toMatch(/Date headers disagree by \d+ ms with any one clock/)
  })
})
