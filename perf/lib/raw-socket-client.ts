import { connect } from 'node:net'
import { StringDecoder } from 'node:string_decoder'

/** What the floor client measured, over the window from the first completed request to the last. */
export interface RawFloorRun {
  eventsPerSec: number
  cpuUsPerEvent: number
}

/**
 * The floor of any Node client: raw `node:net` sockets, one hand-written request per response,
 * and per read only a UTF-8 decode, a scan for `data: ` and a timestamp per event. No HTTP parser,
 * no JSON, no metrics: what is left is Node's socket path and the kernel. Only for the perf
 * suite's scripted server (chunked responses that end with `0\r\n\r\n` in the last read).
 */
export async function runRawFloor(
  baseUrl: string,
  streams: number,
  requests: number,
  tokens: number,
): Promise<RawFloorRun> {
  const url = new URL(baseUrl)
  const body = JSON.stringify({
    model: 'perf-model',
    messages: [{ role: 'user', content: 'floor' }],
    max_tokens: tokens,
    stream: true,
  })
  const request = Buffer.from(
    `POST /v1/chat/completions HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  )
  let sent = 0
  let done = 0
  let events = 0
  let first: { at: number; cpu: NodeJS.CpuUsage; events: number } | undefined
  let last: { at: number; cpu: NodeJS.CpuUsage; events: number } | undefined
  const sockets: ReturnType<typeof connect>[] = []
  await new Promise<void>((resolve, reject) => {
    for (let i = 0; i < streams; i++) {
      const decoder = new StringDecoder('utf8')
      const socket = connect(Number(url.port), url.hostname)
      sockets.push(socket)
      socket.setNoDelay(true)
      const next = (): void => {
        if (sent < requests) {
          sent++
          socket.write(request)
        }
      }
      socket.on('connect', next)
      socket.on('error', reject)
      socket.on('data', (buffer: Buffer) => {
        const text = decoder.write(buffer)
        for (let at = text.indexOf('data: '); at >= 0; at = text.indexOf('data: ', at + 6)) {
          performance.now()
          events++
        }
        if (!text.endsWith('0\r\n\r\n')) return
        done++
        const sample = { at: performance.now(), cpu: process.cpuUsage(), events }
        first ??= sample
        last = sample
        if (done === requests) resolve()
        else next()
      })
    }
  })
  for (const socket of sockets) socket.destroy()
  if (!first || !last || last.events === first.events)
    throw new Error('the floor client completed fewer than two requests')
  const counted = last.events - first.events
  return {
    eventsPerSec: counted / ((last.at - first.at) / 1000),
    cpuUsPerEvent: (last.cpu.user - first.cpu.user + last.cpu.system - first.cpu.system) / counted,
  }
}
