// Timing accuracy: measured TTFT and ITL minus what the server did, per request and event.
// The scripted server (its own process) logs when it wrote each event on CLOCK_MONOTONIC; the
// client's performance.now() timestamps are moved onto the same clock (perf/lib/monotonic-clock.ts).
// Run alone: npm exec -- node perf/timing-accuracy.ts [streams,...] [workers,...]
import { loadavg } from 'node:os'
import { runBenchmark } from '../src/core/run.ts'
import type { RequestRecord } from '../src/core/contract/types.ts'
import { startChildServer } from './lib/child-server.ts'
import type { ChildServer } from './lib/child-server.ts'
import { monotonicOffsetMs } from './lib/monotonic-clock.ts'
import { formatSpread, spreadOf } from './lib/percentiles.ts'
import type { Spread } from './lib/percentiles.ts'
import type { ScriptedRequestLog } from './lib/scripted-server.ts'

/** The script of one row: what the server injects and how much load. */
export interface TimingScenario {
  streams: number
  /** Injected time to first token, ms. */
  ttftMs: number
  /** Injected gap between events, ms. */
  itlMs: number
  /** Content events per request. */
  tokens: number
  /** Requests measured. */
  requests: number
  /** Client threads (runBenchmark's `workers`). Default 1. */
  workers?: number
}

export interface TimingRow extends TimingScenario {
  /** Measured TTFT minus the server's (first write minus arrival), ms. */
  ttftError: Spread
  /** Measured ITL minus the server's gap between the same two writes, ms (absolute values). */
  itlError: Spread
  /** Client timestamp of an event minus the server's write of it, ms: transport plus client delay. */
  eventDelay: Spread
  /** Server arrival minus client send, ms: the client's send path, transport and the server's read (part of the TTFT error). */
  sendDelay: Spread
  /** Requests whose server log was found and whose event counts agree. */
  matched: number
  failed: number
  keptUp: boolean
  eventLoopDelayP99Ms: number | undefined
  loadAverage: number
}

/** The default rows: the injected pace keeps the machine's event rate near 10-20k/s. */
export const TIMING_SCENARIOS: TimingScenario[] = [
  { streams: 1, ttftMs: 20, itlMs: 5, tokens: 32, requests: 40 },
  { streams: 256, ttftMs: 20, itlMs: 20, tokens: 32, requests: 768 },
  { streams: 2000, ttftMs: 50, itlMs: 100, tokens: 32, requests: 6000 },
  { streams: 2000, ttftMs: 50, itlMs: 100, tokens: 32, requests: 6000, workers: 2 },
]

async function fetchJson<T>(url: string, body?: unknown): Promise<T> {
  const response = await fetch(url, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) })
  return (await response.json()) as T
}

/** The server's log entry of a record: same prompt, the first arrival after the record's send. */
function matchLog(
  byKey: Map<string, ScriptedRequestLog[]>,
  key: string,
  sentMono: number,
): ScriptedRequestLog | undefined {
  const entries = byKey.get(key)
  if (!entries) return undefined
  for (const entry of entries) if (entry.arrivedAt >= sentMono) return entry
  return undefined
}

/** Runs one scenario against a scripted server already started in timed mode. */
export async function measureTiming(server: ChildServer, scenario: TimingScenario): Promise<TimingRow> {
  await fetchJson(`${server.url}/_config`, { mode: 'timed', ttftMs: scenario.ttftMs, itlMs: scenario.itlMs, log: true })
  const prompts = Array.from({ length: scenario.requests }, (_, i) => `timing request ${i}`)
  const result = await runBenchmark(
    {
      target: { baseUrl: server.url },
      workload: { kind: 'prompts', prompts, maxTokens: scenario.tokens },
      load: { concurrency: scenario.streams, requests: scenario.requests },
      // One warm-up request per stream opens every connection before the measurement.
      warmup: { requests: scenario.streams },
      recordRequests: true,
      workers: scenario.workers ?? 1,
    },
    { skipGpu: true },
  )
  const offset = monotonicOffsetMs()
  const logs = await fetchJson<ScriptedRequestLog[]>(`${server.url}/_log`)
  await fetchJson(`${server.url}/_config`, { log: false })
  const byKey = new Map<string, ScriptedRequestLog[]>()
  for (const entry of logs) {
    const list = byKey.get(entry.key) ?? []
    list.push(entry)
    byKey.set(entry.key, list)
  }
  for (const list of byKey.values()) list.sort((a, b) => a.arrivedAt - b.arrivedAt)

  const ttft: number[] = []
  const itl: number[] = []
  const delay: number[] = []
  const send: number[] = []
  let matched = 0
  for (const record of (result.requests ?? []) as RequestRecord[]) {
    if (!record.ok || record.firstTokenAt === undefined) continue
    const entry = matchLog(byKey, prompts[record.index % prompts.length] as string, record.sentAt + offset)
    if (!entry || entry.writes.length !== record.chunkTimes.length) continue
    matched++
    const writes = entry.writes
    ttft.push(record.firstTokenAt - record.sentAt - ((writes[0] as number) - entry.arrivedAt))
    send.push(entry.arrivedAt - (record.sentAt + offset))
    for (let k = 0; k < writes.length; k++) {
      const at = record.chunkTimes[k] as number
      delay.push(at + offset - (writes[k] as number))
      if (k > 0)
        itl.push(
          Math.abs(at - (record.chunkTimes[k - 1] as number) - ((writes[k] as number) - (writes[k - 1] as number))),
        )
    }
  }
  return {
    ...scenario,
    ttftError: spreadOf(ttft),
    itlError: spreadOf(itl),
    eventDelay: spreadOf(delay),
    sendDelay: spreadOf(send),
    matched,
    failed: result.counts.failed,
    keptUp: result.client.keptUp,
    eventLoopDelayP99Ms: result.client.eventLoopDelayMs?.p99,
    loadAverage: loadavg()[0] ?? NaN,
  }
}

/** Markdown table of timing rows. */
export function formatTimingRows(rows: TimingRow[]): string {
  const lines = [
    '| streams (workers) | injected TTFT / ITL (ms) | requests matched | TTFT error p50 / p99 / max (ms) | ITL error p50 / p99 / max (ms) | event delay p50 / p99 / max (ms) | send delay p50 / p99 / max (ms) | client kept up | load avg |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: | ---: |',
  ]
  for (const r of rows) {
    lines.push(
      `| ${r.streams} (${r.workers ?? 1}) | ${r.ttftMs} / ${r.itlMs} | ${r.matched} of ${r.requests}${r.failed ? ` (${r.failed} failed)` : ''} | ${formatSpread(r.ttftError)} | ${formatSpread(r.itlError)} | ${formatSpread(r.eventDelay)} | ${formatSpread(r.sendDelay)} | ${r.keptUp ? 'yes' : 'no'} | ${r.loadAverage.toFixed(2)} |`,
    )
  }
  return lines.join('\n')
}

/** Starts the scripted server, runs the scenarios, stops it. */
export async function runTimingAccuracy(scenarios: TimingScenario[] = TIMING_SCENARIOS): Promise<TimingRow[]> {
  const server = await startChildServer('scripted', { mode: 'timed' }, 1)
  try {
    const rows: TimingRow[] = []
    for (const scenario of scenarios) rows.push(await measureTiming(server, scenario))
    return rows
  } finally {
    await server.close()
  }
}

if (import.meta.main) {
  const only = process.argv[2]?.split(',').map(Number)
  const scenarios = only ? TIMING_SCENARIOS.filter((s) => only.includes(s.streams)) : TIMING_SCENARIOS
  // A second argument, a list of worker counts, runs each chosen stream count with each of them.
  const workers = process.argv[3]?.split(',').map(Number)
  const chosen = workers
    ? [...new Map(scenarios.map((s) => [s.streams, s])).values()].flatMap((s) =>
        workers.map((w) => ({ ...s, ...(w > 1 ? { workers: w } : { workers: undefined }) })),
      )
    : scenarios
  console.log(formatTimingRows(await runTimingAccuracy(chosen)))
}
