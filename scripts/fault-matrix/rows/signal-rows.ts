// Signals: a terminal's Ctrl-C (SIGINT to the process group), SIGTERM to the `npx` process alone or to its group (a CI cancel),
// Ctrl-C while a baseline is written, and Ctrl-C after a bench finished (its report must be written).
import { readdirSync, readFileSync, statSync, watch, writeFileSync } from 'node:fs'
import { benchFile, benchOptions, configFile, fastSim } from '../fixtures.ts'
import { describeLeft, processesOf } from '../processes.ts'
import { llamaPid, waitFor } from './llama.ts'
import { exitText, joined, reportedBenches, sleep } from './observe.ts'
import type { Row, RowOutcome, RowRun } from './row.ts'
import { llamaBench } from './server-rows.ts'

/** Starts the 2,000-request llama-server bench, sends `signal` 5 s into it, and measures until nothing is left. */
async function signalled(row: RowRun, signal: NodeJS.Signals, group: boolean, withinS: number): Promise<RowOutcome> {
  llamaBench(row, 'signalled')
  const child = row.start([])
  const pid = await llamaPid(row, 30_000)
  if (pid === undefined) return { observed: `no llama-server appeared; ${exitText(await child.done)}`, held: false }
  await sleep(5000)
  const sentAt = performance.now()
  if (group) child.signalGroup(signal)
  else child.signal(signal)
  const ran = await child.done
  row.log(`vitest bench (${signal})`, ran)
  // Everything of the row gone: vitest, its workers, llama-server.
  let goneAfter: number | undefined
  while (performance.now() - sentAt < (withinS + 5) * 1000) {
    if (processesOf(row.marker, row.dir, row.ctx.hogs).length === 0) {
      goneAfter = (performance.now() - sentAt) / 1000
      break
    }
    await sleep(50)
  }
  const left = await row.left(0)
  return {
    observed: joined(
      `${exitText(ran)}`,
      goneAfter === undefined
        ? `processes NOT gone within ${withinS + 5} s`
        : `every process gone ${goneAfter.toFixed(1)} s after the ${signal}`,
      `${describeLeft(left)}`,
    ),
    held: goneAfter !== undefined && goneAfter <= withinS && left.length === 0 && !ran.timedOut,
  }
}

const FILE = 'benches/__llm_baselines__/a.bench.ts.json'
/** Entries of the baseline written while Ctrl-C lands (about 5 KB each). */
const ENTRIES = 1000

/** The inode and size of the baseline file, as one string (a rename over it changes the inode). */
function identity(path: string): string {
  try {
    const stat = statSync(path)
    return `${stat.ino}:${stat.size}`
  } catch {
    return 'absent'
  }
}

/** Entries in the baseline file, or undefined when it is not valid JSON. */
function entries(path: string): number | undefined {
  try {
    return Object.keys((JSON.parse(readFileSync(path, 'utf8')) as { entries: object }).entries).length
  } catch {
    return undefined
  }
}

export const signalRows: Row[] = [
  {
    id: 'ctrl-c-group',
    family: 'signals',
    does: "SIGINT to the process group of `npx vitest bench` 5 s into a llama-server load (a terminal's Ctrl-C)",
    expects: 'npx, vitest and llama-server all gone within 3 s',
    alone: true,
    run: (row) => signalled(row, 'SIGINT', true, 3),
  },
  {
    id: 'sigterm-npx',
    family: 'signals',
    does: 'SIGTERM to the `npx vitest bench` process alone 5 s into a llama-server load (a CI cancel, `kill <pid>`)',
    expects: 'vitest and llama-server gone within 5 s',
    alone: true,
    run: (row) => signalled(row, 'SIGTERM', false, 5),
  },
  {
    id: 'sigterm-group',
    family: 'signals',
    does: 'SIGTERM to the process group of `npx vitest bench` 5 s into a llama-server load (`kill -- -<pgid>`, a CI cancel)',
    expects: 'npx, vitest and llama-server all gone within 5 s',
    alone: true,
    run: (row) => signalled(row, 'SIGTERM', true, 5),
  },
  {
    id: 'ctrl-c-during-baseline-write',
    family: 'signals',
    does: `8 runs of -t ^a1$ -u, each Ctrl-C'd 0-50 ms after its ${ENTRIES}-entry baseline's temporary file appears`,
    expects: `after each: the file is valid JSON with all ${ENTRIES} entries`,
    alone: true,
    limitMs: 300_000,
    run: async (row) => {
      // As many benches in the file as entries in the baseline: none of them is obsolete, so `-u` keeps them all.
      const names = Array.from({ length: ENTRIES }, (_, i) => `a${i + 1}`)
      row.write({
        'vitest.config.mts': configFile(),
        'benches/a.bench.ts': benchFile([['a1', benchOptions(8)]]),
      })
      const recorded = await row.bench(['-u'], { env: { LLM_BENCH_FORCE_BASELINE: '1' } })
      if (recorded.rc !== 0) return { observed: `recording: ${exitText(recorded)}`, held: false }
      const path = row.path(FILE)
      const file = JSON.parse(readFileSync(path, 'utf8')) as { entries: Record<string, unknown> }
      for (const name of names) file.entries[name] = file.entries.a1
      writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`)
      row.write({ 'benches/a.bench.ts': benchFile(names.map((name) => [name, benchOptions(8)])) })
      // Each run is interrupted a few milliseconds after its temporary file appears (inotify): inside the write.
      const dir = row.path('benches/__llm_baselines__')
      const results: string[] = []
      let held = true
      for (const delayMs of [0, 0, 1, 2, 5, 10, 20, 50]) {
        const old = identity(path)
        const child = row.start(['-t', '^a1$', '-u'])
        let sent = false
        const watcher = watch(dir, (_event, name) => {
          if (sent || !name?.endsWith('.tmp')) return
          sent = true
          setTimeout(() => child.signalGroup('SIGINT'), delayMs)
        })
        const ran = await child.done
        watcher.close()
        row.log(`vitest bench -t ^a1$ -u (SIGINT ${delayMs} ms into the write)`, ran)
        const count = entries(path)
        held &&= count === ENTRIES && sent && !ran.timedOut
        const state = count === undefined ? 'INVALID JSON' : `${identity(path) === old ? 'old' : 'new'} file ${count}`
        results.push(`+${delayMs} ms: ${sent ? state : 'NO WRITE SEEN'}`)
      }
      const temporaries = readdirSync(dir).filter((name) => name.endsWith('.tmp')).length
      return {
        observed: joined(
          `SIGINT after the temporary file appeared ${results.join(', ')} entries`,
          `${temporaries} .tmp left`,
          describeLeft(await row.left()),
        ),
        held,
      }
    },
  },
  {
    id: 'ctrl-c-keeps-reports',
    family: 'signals',
    does: 'Ctrl-C 1 s after bench "first" (16 requests) finished, while "second" (100,000 requests) runs',
    expects: 'a results.json (llm-bench-report/) exists after the SIGINT and holds "first"',
    alone: true,
    run: async (row) => {
      row.write({
        'vitest.config.mts': configFile(),
        'benches/a.bench.ts': benchFile([
          ['first', benchOptions(16, { baseline: 'false' })],
          ['second', benchOptions(100_000, { server: fastSim('speedFactor: 5'), baseline: 'false' })],
        ]),
      })
      const child = row.start([])
      const finished = await waitFor(child.output, /16\/16 requests completed|requests completed in/, 30_000)
      await sleep(1000)
      child.signalGroup('SIGINT')
      const ran = await child.done
      row.log('vitest bench (SIGINT)', ran)
      // Any results.json under the project (a run may write to a folder of its own).
      const reports = row.reports()
      const names = reports.flatMap((r) => reportedBenches(r.text).map((b) => b.name))
      const found = reports.length > 0
      return {
        observed: joined(
          `first ${finished ? 'finished' : 'NOT seen finishing'}`,
          `${exitText(ran)}`,
          found
            ? `results.json: ${reports.map((r) => r.path.replace(row.dir, '.')).join(', ')} holding [${names}]`
            : 'results.json absent',
          `${describeLeft(await row.left())}`,
        ),
        held: finished && names.includes('first'),
      }
    },
  },
]
