// Side by side with a Python asyncio + aiohttp client built like vLLM's benchmark client
// (perf/peer/aiohttp_client.py), against the same server in the same run: events per second and
// client CPU per event of each, and their ratios.
// Run alone: npm exec -- node perf/peer-aiohttp.ts [streams,...] [paced streams,...]
// Needs a python3 with aiohttp (Debian: apt-get install -y python3-aiohttp; PERF_PYTHON picks the interpreter).
import { execFileSync } from 'node:child_process'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { startChildServer } from './lib/child-server.ts'
import type { ChildServer } from './lib/child-server.ts'
import { measureRun } from './lib/measure-run.ts'
import { runRawFloor } from './lib/raw-socket-client.ts'

export interface PeerRow {
  server: string
  streams: number
  requests: number
  tokens: number
  ours: { eventsPerSec: number; cpuUsPerEvent: number; failed: number }
  peer: { eventsPerSec: number; cpuUsPerEvent: number; failed: number; python: string; aiohttp: string }
  /** The raw node:net floor (perf/lib/raw-socket-client.ts): scripted servers only. */
  floor: { eventsPerSec: number; cpuUsPerEvent: number } | undefined
  /** Ours divided by the peer's (events per second: higher is better for us). */
  eventsPerSecRatio: number
  /** The peer's CPU per event divided by ours (how many times less CPU we use). */
  cpuPerEventRatio: number
  loadAverage: number
}

const SCRIPT = fileURLToPath(new URL('./peer/aiohttp_client.py', import.meta.url))

/** The first python3 that imports aiohttp: PERF_PYTHON, the system one, then the one on PATH. */
export function findPython(): string | undefined {
  const candidates = [process.env.PERF_PYTHON, '/usr/bin/python3', 'python3'].filter(
    (c): c is string => c !== undefined && c !== '',
  )
  for (const candidate of candidates) {
    try {
      execFileSync(candidate, ['-c', 'import aiohttp'], { stdio: 'ignore' })
      return candidate
    } catch {
      // Not this one.
    }
  }
  return undefined
}

interface PeerOutput {
  python: string
  aiohttp: string
  completed: number
  failed: number
  eventsPerSec: number
  cpuUsPerEvent: number
}

/** One row: ours, then the peer, with the same streams, requests and output length. */
export async function comparePeer(
  python: string,
  server: ChildServer,
  label: string,
  streams: number,
  requests: number,
  tokens: number,
  floor: boolean,
): Promise<PeerRow> {
  const warmup = Math.min(streams, 64)
  const ours = await measureRun({
    target: { baseUrl: server.url },
    workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: tokens } },
    load: { concurrency: streams, requests },
    warmup: { requests: warmup },
  })
  const { stdout } = await execa(python, [
    SCRIPT,
    server.url,
    String(streams),
    String(requests),
    String(tokens),
    String(warmup),
  ])
  const peer = JSON.parse(stdout) as PeerOutput
  const floorRun = floor ? await runRawFloor(server.url, streams, requests, tokens) : undefined
  return {
    server: label,
    streams,
    requests,
    tokens,
    ours: { eventsPerSec: ours.eventsPerSec, cpuUsPerEvent: ours.cpuUsPerEvent, failed: ours.result.counts.failed },
    peer: {
      eventsPerSec: peer.eventsPerSec,
      cpuUsPerEvent: peer.cpuUsPerEvent,
      failed: peer.failed,
      python: peer.python,
      aiohttp: peer.aiohttp,
    },
    floor: floorRun,
    eventsPerSecRatio: ours.eventsPerSec / peer.eventsPerSec,
    cpuPerEventRatio: peer.cpuUsPerEvent / ours.cpuUsPerEvent,
    loadAverage: loadavg()[0] ?? NaN,
  }
}

/** Markdown table of peer rows. */
export function formatPeerRows(rows: PeerRow[]): string {
  const first = rows[0]
  const lines = [
    first
      ? `Peer: Python ${first.peer.python}, aiohttp ${first.peer.aiohttp}; ours: Node ${process.version}.`
      : 'No peer rows.',
    '',
    '| server | streams | requests x tokens | ours: events/s | peer: events/s | events/s ratio | ours: CPU µs/event | peer: CPU µs/event | CPU ratio (peer / ours) | raw node:net floor: events/s, CPU µs/event | load avg |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  const n = (v: number) => Math.round(v).toLocaleString('en-US')
  for (const r of rows) {
    lines.push(
      `| ${r.server} | ${r.streams} | ${r.requests} x ${r.tokens} | ${n(r.ours.eventsPerSec)} | ${n(r.peer.eventsPerSec)} | ${r.eventsPerSecRatio.toFixed(2)}x | ${r.ours.cpuUsPerEvent.toFixed(2)} | ${r.peer.cpuUsPerEvent.toFixed(2)} | ${r.cpuPerEventRatio.toFixed(2)}x | ${r.floor ? `${n(r.floor.eventsPerSec)}, ${r.floor.cpuUsPerEvent.toFixed(2)}` : '-'} | ${r.loadAverage.toFixed(2)} |`,
    )
  }
  return lines.join('\n')
}

/** Default rows: the instant servers at 1, 64 and 512 streams (each client's ceiling). */
export const PEER_STREAMS = [1, 64, 512]
/** Paced rows: a server that spaces events as a real one does, so each event costs the client a wake-up. */
export const PEER_PACED_STREAMS = [64, 256, 1000]

export async function runPeer(
  streams: number[] = PEER_STREAMS,
  pacedStreams: number[] = PEER_PACED_STREAMS,
  tokens = 256,
): Promise<PeerRow[] | string> {
  const python = findPython()
  if (python === undefined)
    return 'skipped: no python3 with aiohttp (apt-get install -y python3-aiohttp, or set PERF_PYTHON)'
  const rows: PeerRow[] = []
  const servers = [
    ['scripted (instant)', 'scripted', { mode: 'instant' }, streams, tokens, 4],
    ['simulator (speed 0)', 'sim', { speedFactor: 0, maxRunningSequences: 4096 }, streams, tokens, 4],
    [
      'scripted (paced: TTFT 20 ms, ITL 10 ms)',
      'scripted',
      { mode: 'timed', ttftMs: 20, itlMs: 10 },
      pacedStreams,
      64,
      8,
    ],
  ] as const
  for (const [label, kind, options, counts, length, rounds] of servers) {
    const server = await startChildServer(kind, options)
    try {
      for (const s of counts)
        rows.push(await comparePeer(python, server, label, s, Math.max(s * rounds, 200), length, kind === 'scripted'))
    } finally {
      await server.close()
    }
  }
  return rows
}

if (import.meta.main) {
  const streams = process.argv[2]?.split(',').map(Number)
  const paced = process.argv[3]?.split(',').map(Number)
  const rows = await runPeer(streams, paced)
  console.log(typeof rows === 'string' ? rows : formatPeerRows(rows))
}
