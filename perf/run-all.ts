// The client performance suite: parse capacity, timing accuracy, memory, and a Python aiohttp
// peer, each against a server in its own process. Prints Markdown (docs/performance.md holds a
// recorded run). Every figure carries the machine's load average: other work on the machine moves
// them. Run: npm run perf [-- --quick] [-- --only=capacity,handler,timing,memory,peer] [-- --json=out.json]
import { writeFileSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'
import { formatHandlerCostRows, runHandlerCost } from './handler-cost.ts'
import { formatMemoryRows, runMemoryInChild } from './memory.ts'
import { formatCapacityRows, runParseCapacity } from './parse-capacity.ts'
import { formatPeerRows, runPeer } from './peer-aiohttp.ts'
import { formatTimingRows, runTimingAccuracy, TIMING_SCENARIOS } from './timing-accuracy.ts'

// Memory runs in a child process of its own; the other sections run in this one.
const SECTIONS = ['capacity', 'handler', 'timing', 'memory', 'peer'] as const
type Section = (typeof SECTIONS)[number]

const args = process.argv.slice(2)
const quick = args.includes('--quick')
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',') as Section[] | undefined
const jsonPath = args.find((a) => a.startsWith('--json='))?.slice('--json='.length)
const unknown = only?.filter((s) => !SECTIONS.includes(s))
if (unknown && unknown.length > 0) {
  console.error(`unknown section(s) ${unknown.join(', ')}: use ${SECTIONS.join(', ')}`)
  process.exit(2)
}
const wanted = (section: Section): boolean => only === undefined || only.includes(section)

const cpu = cpus()[0]
console.log(`# vitest-llm-bench client performance${quick ? ' (quick)' : ''}`)
console.log('')
console.log(
  `${new Date().toISOString()}; Node ${process.version}; ${cpus().length} x ${cpu?.model ?? 'unknown CPU'}; ${(totalmem() / 2 ** 30).toFixed(0)} GiB; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
)
const results: Record<string, unknown> = {
  startedAt: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  quick,
}

const started = performance.now()
const stamp = (): string => `(${((performance.now() - started) / 1000).toFixed(0)} s in)`

if (wanted('capacity')) {
  const rows = await runParseCapacity(quick ? [1, 64, 512] : undefined)
  results.capacity = rows
  console.log(`\n## Parse capacity ${stamp()}\n\n${formatCapacityRows(rows)}`)
}
if (wanted('handler')) {
  const rows = await runHandlerCost()
  results.handler = rows
  console.log(`\n## Client JavaScript per event (no network) ${stamp()}\n\n${formatHandlerCostRows(rows)}`)
}
if (wanted('timing')) {
  const scenarios = quick
    ? TIMING_SCENARIOS.map((s) => ({ ...s, requests: Math.max(s.streams, Math.round(s.requests / 3)) }))
    : TIMING_SCENARIOS
  const rows = await runTimingAccuracy(scenarios)
  results.timing = rows
  console.log(`\n## Timing accuracy ${stamp()}\n\n${formatTimingRows(rows)}`)
}
if (wanted('memory')) {
  const rows = await runMemoryInChild(quick ? 100_000 : 1_000_000, quick ? 20_000 : 200_000)
  results.memory = rows
  console.log(`\n## Memory ${stamp()}\n\n${formatMemoryRows(rows)}`)
}
if (wanted('peer')) {
  const rows = await runPeer(quick ? [64] : undefined, quick ? [256] : undefined)
  results.peer = rows
  console.log(`\n## Python aiohttp peer ${stamp()}\n\n${typeof rows === 'string' ? rows : formatPeerRows(rows)}`)
}
console.log(
  `\nDone in ${((performance.now() - started) / 1000).toFixed(0)} s; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}.`,
)
if (jsonPath) writeFileSync(jsonPath, `${JSON.stringify(results, null, 2)}\n`)
