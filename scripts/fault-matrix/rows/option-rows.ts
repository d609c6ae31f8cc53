// Options and inputs that cannot run: bad load values, an unknown workload kind, a malformed or binary dataset, a
// missing tokenizer, and typos in nested options. Each must fail before the load, naming the option, file or line
// (a typo with "did you mean" and the right name); the rows that can prove it count what a simulator served.
import { benchFile, benchOptions, configFile, fastSim } from '../fixtures.ts'
import { describeLeft } from '../processes.ts'
import { startSimServer } from '../sim-server.ts'
import { exitText, quote } from './observe.ts'
import type { Row, RowOutcome, RowRun } from './row.ts'

/** One bench of a row: its name, the fields that differ from a small bench, the sentence that must name it. */
interface BadBench {
  name: string
  fields: Record<string, string>
  key: RegExp
}

/** Runs a file per bench (against the row's simulator process when `counted`): all must fail, each named. */
async function refused(
  row: RowRun,
  benches: BadBench[],
  options: { counted?: boolean; files?: Record<string, string>; imports?: string[] } = {},
): Promise<RowOutcome> {
  const sim = options.counted ? await startSimServer(row) : undefined
  const server: Record<string, string> = sim ? { server: `connect('${sim.url}')` } : {}
  const imports = options.imports ?? (sim ? ['bench', 'connect'] : ['bench', 'simulator'])
  // One file per bench: a bench refused at collection stops the rest of its file.
  row.write({ 'vitest.config.mts': configFile(), ...options.files })
  for (const b of benches)
    row.write({
      [`benches/${b.name}.bench.ts`]: benchFile([[b.name, benchOptions(400, { ...server, ...b.fields })]], imports),
    })
  const ran = await row.bench([])
  const served = sim ? await sim.served() : undefined
  await sim?.stop()
  const left = await row.left()
  const named = benches.map((b) => b.key.test(ran.output))
  const passed = benches.filter((b) => new RegExp(`✓\\s+${b.name}\\b`).test(ran.output))
  const held =
    ran.rc === 1 &&
    named.every(Boolean) &&
    passed.length === 0 &&
    (served === undefined || (served.completed === 0 && served.promptTokens === 0)) &&
    left.length === 0
  return {
    observed: [
      exitText(ran),
      ...benches.map((b) => quote(ran.output, b.key, 100)),
      ...(served ? [`served ${served.completed} requests`] : []),
      ...(passed.length ? [`passed: ${passed.map((b) => b.name).join(', ')}`] : []),
      describeLeft(left),
    ].join('; '),
    held,
  }
}

/** A typo row: each bench has one misspelt key; the message must say "did you mean" and the right name. */
function typoRow(
  id: string,
  does: string,
  benches: Array<[name: string, fields: Record<string, string>, wrong: string, right: string]>,
  imports?: string[],
): Row {
  return {
    id,
    family: 'options',
    does,
    expects: 'exit 1 at collection, each typo refused with "did you mean" and the right name',
    run: (row) =>
      refused(
        row,
        benches.map(([name, fields, wrong, right]) => ({
          name,
          fields,
          key: new RegExp(`${wrong}.*did you mean.*${right}|did you mean.*${right}.*${wrong}`, 'i'),
        })),
        imports ? { imports } : {},
      ),
  }
}

const SMALL_SYNTHETIC = `kind: 'synthetic', inputTokens: { mean: 32 }, outputTokens: { mean: 8 }`

const JSONL_LINES = ['{"prompt": "one"}', '{"prompt": "two"}', '{"prompt": "three",', '{"prompt": "four"}']

/** 4 KB of bytes that are no text (NULs and high bytes), the same every run. */
function binaryBytes(): string {
  let text = ''
  for (let i = 0; i < 4096; i++) text += String.fromCharCode((i * 151 + 7) % 256)
  return text
}

export const optionRows: Row[] = [
  {
    id: 'load-bad-values',
    family: 'options',
    does: 'benches with load.concurrency 0, load.requests -5, load.rate "fast"',
    expects: 'exit 1, each bench refused naming its option, no request served',
    run: (row) =>
      refused(
        row,
        [
          { name: 'zero', fields: { load: '{ concurrency: 0, requests: 8 }' }, key: /load\.concurrency/ },
          { name: 'negative', fields: { load: '{ concurrency: 2, requests: -5 }' }, key: /load\.requests/ },
          { name: 'word', fields: { load: `{ rate: 'fast', requests: 8 }` }, key: /load\.rate/ },
        ],
        { counted: true },
      ),
  },
  {
    id: 'workload-unknown-kind',
    family: 'options',
    does: `workload { kind: 'sharegtp' }`,
    expects: 'exit 1 naming workload.kind, no request served',
    run: (row) =>
      refused(
        row,
        [{ name: 'kind', fields: { workload: `{ kind: 'sharegtp', path: 'x.json' }` }, key: /workload\.kind/ }],
        {
          counted: true,
        },
      ),
  },
  {
    id: 'dataset-malformed-line',
    family: 'options',
    does: 'a jsonl workload whose line 3 is cut off mid-object',
    expects: 'exit 1 naming the file and line 3, no request served',
    run: (row) =>
      refused(
        row,
        [
          {
            name: 'jsonl',
            fields: { workload: `{ kind: 'jsonl', path: 'data/chat.jsonl' }` },
            key: /chat\.jsonl.*line 3|line 3.*chat\.jsonl|chat\.jsonl:3/,
          },
        ],
        { counted: true, files: { 'benches/data/chat.jsonl': `${JSONL_LINES.join('\n')}\n` } },
      ),
  },
  {
    id: 'dataset-binary',
    family: 'options',
    does: 'a jsonl workload whose file is 4 KB of binary bytes',
    expects: 'exit 1 naming the file, no request served',
    run: (row) =>
      refused(
        row,
        [{ name: 'binary', fields: { workload: `{ kind: 'jsonl', path: 'data/blob.jsonl' }` }, key: /blob\.jsonl/ }],
        { counted: true, files: { 'benches/data/blob.jsonl': binaryBytes() } },
      ),
  },
  {
    id: 'tokenizer-missing',
    family: 'options',
    does: 'a synthetic workload whose tokenizer file does not exist',
    expects: 'exit 1 naming the file, no request served',
    run: (row) =>
      refused(
        row,
        [
          {
            name: 'tokenizer',
            fields: {
              workload: `{ ${SMALL_SYNTHETIC}, tokenizer: './no-such-tokenizer.json' }`,
            },
            key: /no-such-tokenizer\.json/,
          },
        ],
        { counted: true },
      ),
  },
  typoRow('typo-target-warmup', 'target.requestTimeoutMS and warmup.request', [
    ['timeout', { target: '{ requestTimeoutMS: 1000 }' }, 'requestTimeoutMS', 'requestTimeoutMs'],
    ['warmup', { warmup: '{ request: 2 }' }, 'request\\b', 'requests'],
  ]),
  typoRow('typo-workload', 'workload.ignoreEOS and workload.sharedPrefixTokenz', [
    ['eos', { workload: `{ ${SMALL_SYNTHETIC}, ignoreEOS: false }` }, 'ignoreEOS', 'ignoreEos'],
    [
      'prefix',
      {
        workload: `{ ${SMALL_SYNTHETIC}, sharedPrefixTokenz: 16 }`,
      },
      'sharedPrefixTokenz',
      'sharedPrefixTokens',
    ],
  ]),
  typoRow('typo-simulator', 'simulator({ speedfactor }) and simulator({ faults: { httpErrorRat } })', [
    ['speed', { server: fastSim('speedfactor: 2') }, 'speedfactor', 'speedFactor'],
    ['fault', { server: fastSim('faults: { httpErrorRat: 0.5 }') }, 'httpErrorRat\\b', 'httpErrorRate'],
  ]),
  typoRow(
    'typo-llama-cpp',
    `llamaCpp({ modelPath, arg: ['-c', '64'] })`,
    [['llama', { server: `llamaCpp({ modelPath: 'tiny.gguf', arg: ['-c', '64'] })` }, 'arg\\b', 'args']],
    ['bench', 'llamaCpp'],
  ),
]
