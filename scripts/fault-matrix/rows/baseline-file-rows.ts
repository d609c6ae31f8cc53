// Baseline files that cannot be used (broken JSON, a wrong shape, a newer schema, another GPU's): the bench must
// fail before any load, naming the file, and keep its bytes. A simulator process of its own counts what was sent.
import { readFileSync } from 'node:fs'
import { benchFile, benchOptions, configFile } from '../fixtures.ts'
import { describeLeft } from '../processes.ts'
import { startSimServer, type SimServer } from '../sim-server.ts'
import { exitText, quote, testMs } from './observe.ts'
import type { Row, RowOutcome, RowRun } from './row.ts'

const FILE = 'benches/__llm_baselines__/a.bench.ts.json'

/** A bench of 400 requests against the row's own simulator process: a load that would be seen. */
async function connectedBench(row: RowRun): Promise<SimServer> {
  const sim = await startSimServer(row)
  row.write({
    'vitest.config.mts': configFile(),
    'benches/a.bench.ts': benchFile(
      [['a1', benchOptions(400, { server: `connect('${sim.url}')` })]],
      ['bench', 'connect'],
    ),
  })
  return sim
}

/** With `text` as the baseline, a compare must exit 1 naming `key`, with nothing served and the bytes kept. */
async function refusedBeforeLoad(
  row: RowRun,
  sim: SimServer,
  text: string,
  key: RegExp,
  env: Record<string, string> = {},
): Promise<RowOutcome> {
  row.write({ [FILE]: text })
  const before = row.sha(FILE)
  const servedBefore = await sim.served()
  const ran = await row.bench([], { env })
  const served = await sim.served()
  await sim.stop()
  const requests = served.completed - servedBefore.completed
  const tokens = served.promptTokens - servedBefore.promptTokens
  const after = row.sha(FILE)
  const ms = testMs(ran.output, 'a1')
  const left = await row.left()
  const held =
    ran.rc === 1 &&
    key.test(ran.output) &&
    requests === 0 &&
    tokens === 0 &&
    before === after &&
    left.length === 0 &&
    (ms === undefined || ms < 1000)
  return {
    observed:
      `${exitText(ran)}; bench ${ms ?? '?'} ms; ${quote(ran.output, key)}; served ${requests} requests; ` +
      `bytes ${before === after ? 'unchanged' : `${before} -> ${after}`}; ${describeLeft(left)}`,
    held,
  }
}

/** A row that writes a bad baseline file and compares against it. */
function badFile(id: string, does: string, text: string, key: RegExp): Row {
  return {
    id,
    family: 'baseline files',
    does,
    expects: 'exit 1 within 1 s of bench time naming the file, no request served, bytes unchanged',
    run: async (row) => refusedBeforeLoad(row, await connectedBench(row), text, key),
  }
}

export const baselineFileRows: Row[] = [
  badFile(
    'baseline-broken-json',
    'compare against a baseline file cut off mid-JSON',
    '{\n  "entries": {\n    "a1": {\n      "config": {',
    /a\.bench\.ts\.json/,
  ),
  badFile(
    'baseline-wrong-shape',
    'compare against a baseline file of the wrong shape ({"entries": 5})',
    '{\n  "entries": 5,\n  "schemaVersion": 1\n}\n',
    /a\.bench\.ts\.json/,
  ),
  badFile(
    'baseline-newer-schema',
    'compare against a baseline file of schemaVersion 99',
    '{\n  "entries": {},\n  "schemaVersion": 99\n}\n',
    /a\.bench\.ts\.json.*99|99.*a\.bench\.ts\.json/,
  ),
  {
    id: 'baseline-other-gpu',
    family: 'baseline files',
    does: 'record with a fake nvidia-smi (2x H200), edit the entry to an A100, compare under CI=true',
    expects: 'exit 1 naming A100 -> H200 before the first request (none served), bytes unchanged',
    run: async (row) => {
      const sim = await connectedBench(row)
      const env = { LLM_BENCH_NVIDIA_SMI: row.ctx.fakeNvidiaSmi }
      const recorded = await row.bench(['-u'], { env })
      const text = row.sha(FILE) === 'absent' ? '' : readFileSync(row.path(FILE), 'utf8')
      if (recorded.rc !== 0 || !text.includes('"gpuModel": "NVIDIA H200"')) {
        await sim.stop()
        return { observed: `recording: ${exitText(recorded)}; no H200 entry stored`, held: false }
      }
      const edited = text.replaceAll('"gpuModel": "NVIDIA H200"', '"gpuModel": "NVIDIA A100-SXM4-80GB"')
      return refusedBeforeLoad(row, sim, edited, /A100-SXM4-80GB -> NVIDIA H200/, { ...env, CI: 'true' })
    },
  },
]
