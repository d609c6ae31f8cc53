// A real server failing under the run (killed, stopped with SIGSTOP, refusing a prompt too long for its context),
// a bench past its own time limit, and a connect() where nothing listens.
import { benchFile, benchOptions, configFile } from '../fixtures.ts'
import { describeLeft } from '../processes.ts'
import { llamaPid, llamaServer } from './llama.ts'
import { exitText, joined, quote, reportedBench, sleep, testMs } from './observe.ts'
import type { Row, RowRun } from './row.ts'

/** A bench of 2,000 requests on the row's llama-server, 4 slots (`stallTimeoutMs` when given). */
export function llamaBench(row: RowRun, name: string, stallTimeoutMs?: number): void {
  row.write({
    'vitest.config.mts': configFile(),
    'benches/a.bench.ts': benchFile(
      [
        [
          name,
          benchOptions(2000, {
            server: llamaServer(row, ['-t', '2', '-np', '4', '-c', '4096']),
            workload: `{ kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 32 }, ignoreEos: true }`,
            warmup: '{ requests: 8 }',
            baseline: 'false',
            trials: '',
            ...(stallTimeoutMs ? { target: `{ stallTimeoutMs: ${stallTimeoutMs} }` } : {}),
          }),
        ],
      ],
      ['bench', 'llamaCpp'],
    ),
  })
}

/** Seconds the measured load runs before a row acts on the server (start and warm-up take about 1 s). */
const INTO_THE_LOAD_MS = 5000
const STALL_TIMEOUT_MS = 6000

export const serverRows: Row[] = [
  {
    id: 'server-killed',
    family: 'real server',
    does: 'llama-server SIGKILLed 5 s into a 2,000-request load',
    expects: 'exit 1 within 5 s of the kill naming SIGKILL and the server log; no process left',
    alone: true,
    run: async (row) => {
      llamaBench(row, 'killed')
      const child = row.start([])
      const pid = await llamaPid(row, 30_000)
      if (pid === undefined) return { observed: `no llama-server appeared; ${exitText(await child.done)}`, held: false }
      await sleep(INTO_THE_LOAD_MS)
      process.kill(pid, 'SIGKILL')
      const killedAt = child.elapsedMs()
      const ran = await child.done
      row.log('vitest bench (server killed)', ran)
      const after = ran.seconds - killedAt / 1000
      const left = await row.left()
      const key = /SIGKILL/
      return {
        observed: joined(
          `${exitText(ran)}, ${after.toFixed(1)} s after the kill`,
          `${quote(ran.output, key)}`,
          `log named: ${/\.llm-bench\/logs\//.test(ran.output)}`,
          `${describeLeft(left)}`,
        ),
        held:
          ran.rc === 1 &&
          after <= 5 &&
          key.test(ran.output) &&
          /\.llm-bench\/logs\//.test(ran.output) &&
          left.length === 0,
      }
    },
  },
  {
    id: 'server-stalled',
    family: 'real server',
    does: `llama-server SIGSTOPped 5 s into the load, stallTimeoutMs ${STALL_TIMEOUT_MS}`,
    expects:
      `the silence named within 10 s, exit 1 within ${STALL_TIMEOUT_MS / 1000} + 2 s, ` +
      'measured requests in results.json, no process left',
    alone: true,
    run: async (row) => {
      llamaBench(row, 'stalled', STALL_TIMEOUT_MS)
      const marks: { stoppedAt?: number; namedAt?: number } = {}
      const child = row.start([], {
        onOutput: (text, atMs) => {
          if (marks.stoppedAt !== undefined && marks.namedAt === undefined && /no byte from the server/.test(text))
            marks.namedAt = atMs
        },
      })
      const pid = await llamaPid(row, 30_000)
      if (pid === undefined) return { observed: `no llama-server appeared; ${exitText(await child.done)}`, held: false }
      await sleep(INTO_THE_LOAD_MS)
      process.kill(pid, 'SIGSTOP')
      const stoppedAt = child.elapsedMs()
      marks.stoppedAt = stoppedAt
      const ran = await child.done
      row.log('vitest bench (server stopped)', ran)
      const left = await row.left(3000)
      // A stopped server left behind would hold the row's folder: the row's clean-up kills it.
      const ended = ran.seconds - stoppedAt / 1000
      const named = marks.namedAt === undefined ? undefined : (marks.namedAt - stoppedAt) / 1000
      const bench = reportedBench(row, 'stalled')
      const completed = bench?.result?.counts?.completed ?? 0
      return {
        observed:
          `${exitText(ran)}; named ${named === undefined ? 'never' : `${named.toFixed(1)} s`} after the SIGSTOP, ` +
          `ended ${ended.toFixed(1)} s after; ` +
          joined(
            `${quote(ran.output, /stopped answering/)}`,
            `results.json: ${bench ? `${completed} of ${bench.result?.counts?.total} completed` : 'no entry'}`,
            `${describeLeft(left)}`,
          ),
        held:
          ran.rc === 1 &&
          named !== undefined &&
          named <= 10 &&
          ended <= STALL_TIMEOUT_MS / 1000 + 2 &&
          completed > 0 &&
          left.length === 0,
      }
    },
  },
  {
    id: 'bench-timeout',
    family: 'real server',
    does: 'bench.llm timeoutMs 3000 (one trial) on a simulator load of 100,000 requests',
    expects: 'exit 1 naming timeoutMs (not Vitest\'s "testTimeout"), measured requests in results.json',
    alone: true,
    run: async (row) => {
      row.write({
        'vitest.config.mts': configFile(),
        'benches/a.bench.ts': benchFile([
          ['limited', benchOptions(100_000, { server: 'simulator()', baseline: 'false', timeoutMs: '3000' })],
        ]),
      })
      const ran = await row.bench([])
      const bench = reportedBench(row, 'limited')
      const completed = bench?.result?.counts?.completed ?? 0
      return {
        observed: joined(
          `${exitText(ran)}`,
          `bench ${testMs(ran.output, 'limited') ?? '?'} ms`,
          `${quote(ran.output, /timeoutMs|testTimeout/)}`,
          `results.json: ${bench ? `${completed} completed` : 'no entry'}`,
        ),
        held: ran.rc === 1 && /timeoutMs/.test(ran.output) && !/testTimeout/.test(ran.output) && completed > 0,
      }
    },
  },
  {
    id: 'server-context-400',
    family: 'real server',
    does: 'prompts of ~400 tokens to a llama-server started with -c 128',
    expects: 'exit 1 saying the server is up and refused: "exceeds the available context size"',
    run: async (row) => {
      row.write({
        'vitest.config.mts': configFile(),
        'benches/a.bench.ts': benchFile(
          [
            [
              'too long',
              benchOptions(16, {
                server: llamaServer(row, ['-t', '2', '-np', '1', '-c', '128']),
                workload: `{ kind: 'synthetic', inputTokens: { mean: 400 }, outputTokens: { mean: 8 } }`,
                baseline: 'false',
              }),
            ],
          ],
          ['bench', 'llamaCpp'],
        ),
      })
      const ran = await row.bench([])
      const key = /exceeds the available context size/
      const left = await row.left()
      return {
        observed: joined(
          `${exitText(ran)}`,
          `${quote(ran.output, key)}`,
          `${quote(ran.output, /server is up|answered|refused/i)}`,
          `${describeLeft(left)}`,
        ),
        held: ran.rc === 1 && key.test(ran.output) && /server is up/i.test(ran.output) && left.length === 0,
      }
    },
  },
  {
    id: 'connect-refused',
    family: 'real server',
    does: `connect('http://127.0.0.1:1'), where nothing listens`,
    expects: 'exit 1 within 5 s of bench time, naming the refused connection',
    run: async (row) => {
      row.write({
        'vitest.config.mts': configFile(),
        'benches/a.bench.ts': benchFile(
          [['nobody', benchOptions(8, { server: `connect('http://127.0.0.1:1')`, baseline: 'false' })]],
          ['bench', 'connect'],
        ),
      })
      const ran = await row.bench([])
      const ms = testMs(ran.output, 'nobody')
      const key = /connection (was )?refused|ECONNREFUSED/i
      return {
        observed: `${exitText(ran)}; bench ${ms ?? '?'} ms; ${quote(ran.output, key)}`,
        held: ran.rc === 1 && ms !== undefined && ms <= 5000 && key.test(ran.output),
      }
    },
  },
]
