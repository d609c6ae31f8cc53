import { mkdtemp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import type { BaselineEntry } from '../../src/core/baseline/index.ts'
import {
  baselineEntryFrom,
  baselinePathFor,
  BaselineStore,
  decideMissingBaseline,
  diffMachine,
  fingerprintOf,
  formatBaselineFile,
  hashConfig,
  NodeBaselineEnvironment,
  parseBaselineFile,
  resolveUpdateMode,
  roundFigure,
} from '../../src/core/baseline/index.ts'
import {
  BaselineFileError,
  BaselineMismatchError,
  BaselineMissingError,
  LlmBenchError,
} from '../../src/core/contract/errors.ts'
import {
  DEFAULT_CONFIG,
  environment,
  lognormalSamples,
  makeResult,
  seededRandom,
  summaryOf,
} from '../helpers/baseline-fixtures.ts'
import { MemoryEnvironment } from '../helpers/memory-baseline-environment.ts'

async function temporaryDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'llm-baseline-'))
  onTestFinished(() => rm(directory, { recursive: true, force: true }))
  return directory
}

const PATH = '/repo/benches/__llm_baselines__/chat.bench.ts.json'

function entryFor(seed: number, overrides: Parameters<typeof makeResult>[0] = {}): BaselineEntry {
  const random = seededRandom(seed)
  const result = makeResult({
    ttftMs: lognormalSamples(random, 200, 80, 0.3),
    tpotMs: lognormalSamples(random, 200, 12, 0.1),
    ...overrides,
  })
  return baselineEntryFrom(result, { recordedAt: '2025-06-01T12:00:00.000Z' })
}

describe('baselinePathFor', () => {
  test('puts <file name>.json in __llm_baselines__ beside the bench file', () => {
    expect(baselinePathFor('/repo/benches/chat.bench.ts')).toBe('/repo/benches/__llm_baselines__/chat.bench.ts.json')
    expect(baselinePathFor('/repo/benches/chat.bench.ts', 'perf-baselines')).toBe(
      '/repo/benches/perf-baselines/chat.bench.ts.json',
    )
    expect(baselinePathFor('/repo/benches/chat.bench.ts', '/abs/b')).toBe('/abs/b/chat.bench.ts.json')
  })
})

describe('file format', () => {
  test('rounds figures to 4 significant digits, keeps integers, never writes -0 or exponents', () => {
    expect(roundFigure(123.456789)).toBe(123.5)
    expect(roundFigure(12345.678)).toBe(12346)
    expect(roundFigure(0.000123456)).toBe(0.0001235)
    expect(roundFigure(123456)).toBe(123456)
    expect(roundFigure(-0.00000001)).toBe(-0.00000001)
    expect(Object.is(roundFigure(-0), 0)).toBe(true)
    expect(Object.is(roundFigure(-0.00004, 1), 0)).toBe(false) // -0.00004 keeps its sign: it is not zero
  })

  test('a small file has sorted keys, 2-space indentation, rounded figures and a trailing newline', () => {
    const result = makeResult({
      ttftMs: [],
      throughput: { outputTokensPerSec: 1066.66666, requestsPerSec: 8.3333333, totalTokensPerSec: 0.00000015 },
    })
    result.metrics.ttftMs = {
      count: 123456,
      min: 1,
      max: 900,
      mean: 81.23456,
      stddev: 20.5,
      p50: 80.00049,
      p90: 120.1,
      p95: 130.77777,
      p99: 150.55555,
      p999: -0,
    }
    result.config = {
      target: { baseUrl: 'http://127.0.0.1:1', api: 'chat' },
      workload: { kind: 'prompts', prompts: ['hi'] },
      load: { rate: Infinity, requests: 10 },
    }
    result.environment = environment({ gpus: 1 })
    const entry = baselineEntryFrom(result, { recordedAt: '2025-06-01T12:00:00.000Z' })
    const text = formatBaselineFile({ schemaVersion: 1, entries: { 'chat p99 under load': entry } })
    expect(text.endsWith('}\n')).toBe(true)
    expect(text).not.toMatch(/e[-+]\d/)
    expect(text).not.toMatch(/: -0[,\n]/)
    expect(text).toMatchInlineSnapshot(`
      "{
        "entries": {
          "chat p99 under load": {
            "config": {
              "load": {
                "rate": "Infinity",
                "requests": 10
              },
              "target": {
                "api": "chat"
              },
              "workload": {
                "kind": "prompts",
                "prompts": [
                  "hi"
                ]
              }
            },
            "configHash": "980f294076ceff1f98508188baa888586c582f3cee9a1d3630d5ddfeff6d7aa7",
            "counts": {
              "completed": 0,
              "failed": 0
            },
            "durationMs": 60000,
            "fingerprint": {
              "cpuModel": "AMD EPYC 9654",
              "driverVersion": "550.54.15",
              "gpuCount": 1,
              "gpuModel": "NVIDIA A100-SXM4-80GB",
              "model": "meta-llama/Llama-3.1-8B-Instruct",
              "runtimeName": "node",
              "runtimeVersion": "24.1.0",
              "serverName": "vllm",
              "serverVersion": "0.10.1"
            },
            "histograms": {},
            "metrics": {
              "e2eMs": {
                "count": 0,
                "mean": 0,
                "p50": 0,
                "p90": 0,
                "p95": 0,
                "p99": 0,
                "p999": 0,
                "stddev": 0
              },
              "itlMs": {
                "count": 0,
                "mean": 0,
                "p50": 0,
                "p90": 0,
                "p95": 0,
                "p99": 0,
                "p999": 0,
                "stddev": 0
              },
              "tpotMs": {
                "count": 0,
                "mean": 0,
                "p50": 0,
                "p90": 0,
                "p95": 0,
                "p99": 0,
                "p999": 0,
                "stddev": 0
              },
              "ttftMs": {
                "count": 123456,
                "mean": 81.23,
                "p50": 80,
                "p90": 120.1,
                "p95": 130.8,
                "p99": 150.6,
                "p999": 0,
                "stddev": 20.5
              }
            },
            "recordedAt": "2025-06-01T12:00:00.000Z",
            "sessions": [
              {
                "at": "2025-06-01T12:00:00.000Z",
                "figures": {
                  "durationMs": 60000,
                  "latency": {
                    "e2eMs": {
                      "count": 0,
                      "mean": 0,
                      "p50": 0,
                      "p90": 0,
                      "p95": 0,
                      "p99": 0,
                      "p999": 0
                    },
                    "itlMs": {
                      "count": 0,
                      "mean": 0,
                      "p50": 0,
                      "p90": 0,
                      "p95": 0,
                      "p99": 0,
                      "p999": 0
                    },
                    "tpotMs": {
                      "count": 0,
                      "mean": 0,
                      "p50": 0,
                      "p90": 0,
                      "p95": 0,
                      "p99": 0,
                      "p999": 0
                    },
                    "ttftMs": {
                      "count": 123456,
                      "mean": 81.23,
                      "p50": 80,
                      "p90": 120.1,
                      "p95": 130.8,
                      "p99": 150.6,
                      "p999": 0
                    }
                  },
                  "throughput": {
                    "outputTokensPerSec": 1067,
                    "requestsPerSec": 8.333,
                    "totalTokensPerSec": 0.00000015
                  }
                },
                "source": "recorded"
              }
            ],
            "throughput": {
              "outputTokensPerSec": {
                "value": 1067
              },
              "requestsPerSec": {
                "value": 8.333
              },
              "totalTokensPerSec": {
                "value": 0.00000015
              }
            },
            "trials": [
              {
                "durationMs": 60000,
                "latency": {
                  "e2eMs": {
                    "count": 0,
                    "mean": 0,
                    "p50": 0,
                    "p90": 0,
                    "p95": 0,
                    "p99": 0,
                    "p999": 0
                  },
                  "itlMs": {
                    "count": 0,
                    "mean": 0,
                    "p50": 0,
                    "p90": 0,
                    "p95": 0,
                    "p99": 0,
                    "p999": 0
                  },
                  "tpotMs": {
                    "count": 0,
                    "mean": 0,
                    "p50": 0,
                    "p90": 0,
                    "p95": 0,
                    "p99": 0,
                    "p999": 0
                  },
                  "ttftMs": {
                    "count": 123456,
                    "mean": 81.23,
                    "p50": 80,
                    "p90": 120.1,
                    "p95": 130.8,
                    "p99": 150.6,
                    "p999": 0
                  }
                },
                "throughput": {
                  "outputTokensPerSec": 1067,
                  "requestsPerSec": 8.333,
                  "totalTokensPerSec": 0.00000015
                }
              }
            ]
          }
        },
        "schemaVersion": 1
      }
      "
    `)
  })

  test('the config hash ignores key order, base URL, seed and dataset folders but not the load', () => {
    const a = entryFor(1).configHash
    const reordered = {
      seed: 7,
      load: { requests: 500, concurrency: 16 },
      workload: DEFAULT_CONFIG.workload,
      target: { model: 'meta-llama/Llama-3.1-8B-Instruct', api: 'chat', baseUrl: 'http://10.0.0.1:8000' },
    }
    expect(entryFor(1, { config: reordered }).configHash).toBe(a)
    expect(
      entryFor(1, { config: { ...DEFAULT_CONFIG, load: { concurrency: 32, requests: 500 } } }).configHash,
    ).not.toBe(a)
    const local = hashConfig(
      baselineEntryFrom(makeResult({ config: { workload: { kind: 'jsonl', path: '/home/me/repo/data/chat.jsonl' } } }))
        .config,
    )
    const ci = hashConfig(
      baselineEntryFrom(makeResult({ config: { workload: { kind: 'jsonl', path: '/__w/repo/data/chat.jsonl' } } }))
        .config,
    )
    expect(local).toBe(ci)
  })
})

describe('BaselineStore', () => {
  test('an entry written and read back is the same entry', async () => {
    const env = new MemoryEnvironment()
    const entry = entryFor(1)
    const store = await BaselineStore.open(PATH, { updateMode: 'new', ci: false, environment: env })
    expect(store.match('chat', entry).state).toBe('written')
    const summary = await store.save()
    expect(summary).toMatchObject({ added: ['chat'], updated: [], fileWritten: true })
    const reopened = await BaselineStore.open(PATH, { updateMode: 'none', ci: true, environment: env })
    expect(reopened.get('chat')).toEqual({ state: 'found', entry })
    expect(parseBaselineFile(env.files.get(PATH) ?? '', PATH).entries.chat).toEqual(entry)
    // Same entry again: compare, and saving writes nothing.
    expect(reopened.match('chat', entryFor(2)).state).toBe('compare')
    expect((await reopened.save()).fileWritten).toBe(false)
    expect(env.writes).toBe(1)
  })

  test('writes through a temporary file renamed over the target and leaves no temporary file', async () => {
    const directory = await temporaryDirectory()
    const path = baselinePathFor(join(directory, 'chat.bench.ts'))
    const store = await BaselineStore.open(path, { updateMode: 'new', ci: false })
    store.match('chat', entryFor(1))
    await store.save()
    const before = await stat(path)
    const again = await BaselineStore.open(path, { updateMode: 'all', ci: false })
    again.match('chat', entryFor(3))
    await again.save()
    // A new inode: the file was replaced by a rename, not rewritten in place.
    expect((await stat(path)).ino).not.toBe(before.ino)
    expect(await readdir(join(directory, '__llm_baselines__'))).toEqual(['chat.bench.ts.json'])
    expect(parseBaselineFile(await readFile(path, 'utf8'), path).entries.chat).toEqual(entryFor(3))
  })

  test('a failed rename removes the temporary file and leaves the target alone', async () => {
    const directory = await temporaryDirectory()
    const target = join(directory, 'taken.json')
    await mkdir(target)
    await writeFile(join(target, 'keep'), 'x')
    const env = new NodeBaselineEnvironment()
    await expect(env.writeFileAtomic(target, '{}\n')).rejects.toThrow(LlmBenchError)
    await expect(env.writeFileAtomic(target, '{}\n')).rejects.toThrow(`Cannot write baseline file ${target}`)
    expect(await readdir(directory)).toEqual(['taken.json'])
    expect(await readdir(target)).toEqual(['keep'])
  })

  test('a corrupt file fails with its path and the parse error, and is not replaced, not even under -u', async () => {
    const directory = await temporaryDirectory()
    const path = join(directory, 'chat.bench.ts.json')
    const broken = '{ "schemaVersion": 1, "entries": { "chat": { ,\n'
    await writeFile(path, broken)
    for (const updateMode of ['new', 'all'] as const) {
      const error = await BaselineStore.open(path, { updateMode, ci: false }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(BaselineFileError)
      expect((error as BaselineFileError).path).toBe(path)
      expect((error as Error).message).toContain(`${path}: not valid JSON (`)
      expect((error as Error).message).toMatch(/JSON at position \d+/)
      expect((error as Error).message).toContain(`restore the committed file (\`git checkout -- ${path}\`)`)
    }
    expect(await readFile(path, 'utf8')).toBe(broken)
  })

  test('a hand-broken member is named; a newer schema asks for an upgrade', () => {
    // The first p99 in the file (keys are sorted) is e2eMs's.
    const text = formatBaselineFile({ schemaVersion: 1, entries: { chat: entryFor(1) } }).replace(
      /"p99": [\d.]+/,
      '"p99": "fast"',
    )
    expect(() => parseBaselineFile(text, 'b.json')).toThrow(
      'b.json: entries["chat"].metrics.e2eMs.p99 must be a number, found the string "fast"',
    )
    expect(() => parseBaselineFile('{"schemaVersion": 2, "entries": {}}', 'b.json')).toThrow(
      'schemaVersion is 2, newer than this version of vitest-llm-bench reads (1); upgrade',
    )
    expect(() => parseBaselineFile('[]', 'b.json')).toThrow('b.json: the file must be an object, found an array')
  })

  test('missing entries: written locally, a failure under CI or with update mode none, written under -u even in CI', async () => {
    expect(decideMissingBaseline('chat', PATH, { updateMode: 'new', ci: false })).toEqual({ action: 'write' })
    expect(decideMissingBaseline('chat', PATH, { updateMode: 'all', ci: true })).toEqual({ action: 'write' })
    for (const options of [
      { updateMode: 'new', ci: true },
      { updateMode: 'none', ci: false },
    ] as const) {
      const decision = decideMissingBaseline('chat', PATH, options)
      expect(decision.action).toBe('fail')
      if (decision.action === 'fail') {
        expect(decision.error).toBeInstanceOf(BaselineMissingError)
        expect(decision.error.message).toBe(
          `No baseline for 'chat' in ${PATH}. Run \`vitest bench -u\` locally and commit ${PATH}.`,
        )
      }
    }
    expect(resolveUpdateMode({ update: false, ci: true })).toBe('none')
    expect(resolveUpdateMode({ update: false, ci: false })).toBe('new')
    expect(resolveUpdateMode({ update: true, ci: true })).toBe('all')

    const env = new MemoryEnvironment()
    const ci = await BaselineStore.open(PATH, {
      updateMode: resolveUpdateMode({ update: false, ci: true }),
      ci: true,
      environment: env,
    })
    const match = ci.match('chat', entryFor(1))
    expect(match.state).toBe('missing')
    expect((await ci.save()).fileWritten).toBe(false)
    expect(env.files.size).toBe(0)
  })

  test('-u rewrites run entries, lists obsolete ones, removes them when asked, and keeps benches marked checked', async () => {
    const env = new MemoryEnvironment()
    const first = await BaselineStore.open(PATH, { updateMode: 'new', ci: false, environment: env })
    for (const name of ['a', 'b', 'c', 'skipped']) first.match(name, entryFor(1))
    await first.save()

    const local = await BaselineStore.open(PATH, { updateMode: 'new', ci: false, environment: env })
    local.match('a', entryFor(1))
    local.markChecked('skipped')
    expect(local.obsolete()).toEqual(['b', 'c'])
    expect(await local.save()).toMatchObject({ obsolete: ['b', 'c'], removed: [], fileWritten: false })

    const update = await BaselineStore.open(PATH, { updateMode: 'all', ci: false, environment: env })
    const fresh = entryFor(9)
    const match = update.match('a', fresh)
    expect(match.state).toBe('updated')
    if (match.state === 'updated') expect(match.previous).toEqual(entryFor(1))
    update.markChecked('skipped')
    // A bench's own save under -u removes nothing: its neighbours may not have run yet.
    const own = await BaselineStore.open(PATH, { updateMode: 'all', ci: false, environment: env })
    own.match('a', fresh)
    expect(await own.save()).toMatchObject({ updated: ['a'], obsolete: ['b', 'c', 'skipped'], removed: [] })
    expect(await update.save({ removeObsolete: true })).toMatchObject({
      updated: ['a'],
      added: [],
      obsolete: ['b', 'c'],
      removed: ['b', 'c'],
      fileWritten: true,
    })
    const after = await BaselineStore.open(PATH, { updateMode: 'none', ci: true, environment: env })
    expect(after.names()).toEqual(['a', 'skipped'])
    expect(after.get('a')).toEqual({ state: 'found', entry: fresh })
  })

  test('a compare run never rewrites the file, formatted another way or not, and touches no lock', async () => {
    const env = new MemoryEnvironment()
    const text = JSON.stringify({ schemaVersion: 1, entries: { chat: entryFor(1), old: entryFor(2) } }, null, 4)
    env.files.set(PATH, text)
    let locked = 0
    const exclusive = env.exclusive.bind(env)
    env.exclusive = async (path, critical) => (locked++, exclusive(path, critical))
    const store = await BaselineStore.open(PATH, { updateMode: 'new', ci: false, environment: env })
    expect(store.match('chat', entryFor(1)).state).toBe('compare')
    expect(await store.save()).toEqual({
      path: PATH,
      added: [],
      updated: [],
      removed: [],
      obsolete: ['old'],
      fileWritten: false,
      fileRemoved: false,
    })
    expect(env.files.get(PATH)).toBe(text)
    expect([env.writes, locked]).toEqual([0, 0])
  })

  test('save merges with entries written to the file in between', async () => {
    const env = new MemoryEnvironment()
    const one = await BaselineStore.open(PATH, { updateMode: 'new', ci: false, environment: env })
    const two = await BaselineStore.open(PATH, { updateMode: 'new', ci: false, environment: env })
    one.match('first', entryFor(1))
    two.match('second', entryFor(2))
    await one.save()
    await two.save()
    expect((await BaselineStore.open(PATH, { updateMode: 'none', ci: true, environment: env })).names()).toEqual([
      'first',
      'second',
    ])
  })

  test('a machine change is a mismatch naming what changed and how to refresh; a server upgrade alone is compared', async () => {
    const env = new MemoryEnvironment()
    const store = await BaselineStore.open(PATH, { updateMode: 'new', ci: false, environment: env })
    store.match('chat', entryFor(1))
    await store.save()
    const onH200 = entryFor(1, { environment: environment({ gpu: 'NVIDIA H200', serverVersion: '0.11.0' }) })
    const reopened = await BaselineStore.open(PATH, { updateMode: 'none', ci: true, environment: env })
    const match = reopened.match('chat', onH200)
    expect(match.state).toBe('mismatch')
    if (match.state !== 'mismatch') return
    expect(match.error).toBeInstanceOf(BaselineMismatchError)
    expect(match.error.environmentChanges).toEqual(['GPU NVIDIA A100-SXM4-80GB -> NVIDIA H200'])
    expect(match.error.message).toContain('recorded on another machine: GPU NVIDIA A100-SXM4-80GB -> NVIDIA H200.')
    const upgraded = entryFor(1, { environment: environment({ serverVersion: '0.11.0' }) })
    expect(reopened.match('chat', upgraded).state).toBe('compare')
    expect(match.error.message).toContain(`run \`vitest bench -u\` on the new hardware and commit ${PATH}`)
  })

  test('each machine keeps its own entry: recorded beside the others, judged against its own, -u replaces only its own', async () => {
    const env = new MemoryEnvironment()
    const open = (updateMode: 'new' | 'none' | 'all', ci = false) =>
      BaselineStore.open(PATH, { updateMode, ci, environment: env })
    const onA100 = entryFor(1)
    const onH200 = entryFor(2, { environment: environment({ gpu: 'NVIDIA H200', gpus: 8 }) })
    const first = await open('new')
    first.match('chat', onA100)
    await first.save()

    // Locally, another machine is recorded beside the first, naming it.
    const second = await open('new')
    const beside = second.match('chat', onH200)
    expect(beside).toMatchObject({
      state: 'written',
      otherMachines: ['GPU NVIDIA A100-SXM4-80GB x 1 (driver 550.54.15), CPU AMD EPYC 9654, node 24'],
    })
    expect((await second.save()).updated).toEqual(['chat'])
    const file = parseBaselineFile((await env.readFile(PATH)) as string, PATH)
    expect(file.entries.chat?.fingerprint.gpuModel).toBe('NVIDIA A100-SXM4-80GB')
    expect(file.entries.chat?.otherMachines?.map((entry) => entry.fingerprint.gpuCount)).toEqual([8])

    // Each is compared with its own entry, under CI too; a third machine under CI is refused, naming the closest.
    const ci = await open('none', true)
    const a100 = ci.match('chat', entryFor(3))
    const h200 = ci.match('chat', entryFor(4, { environment: environment({ gpu: 'NVIDIA H200', gpus: 8 }) }))
    expect(a100.state === 'compare' && a100.entry.fingerprint.gpuModel).toBe('NVIDIA A100-SXM4-80GB')
    expect(h200.state === 'compare' && h200.entry.fingerprint.gpuCount).toBe(8)
    expect(h200.state === 'compare' && h200.entry.otherMachines).toBeUndefined()
    const b200 = ci.match('chat', entryFor(5, { environment: environment({ gpu: 'NVIDIA B200', gpus: 8 }) }))
    expect(b200.state === 'mismatch' && b200.error.environmentChanges).toEqual(['GPU NVIDIA H200 -> NVIDIA B200'])
    expect(ci.get('chat', fingerprintOf(environment({ gpu: 'NVIDIA B200' })))).toMatchObject({ state: 'other machine' })

    // -u on the H200 rewrites the H200's entry only.
    const update = await open('all')
    const refreshed = entryFor(6, { environment: environment({ gpu: 'NVIDIA H200', gpus: 8 }) })
    const updated = update.match('chat', refreshed)
    expect(updated.state === 'updated' && updated.previous.recordedAt).toBe(onH200.recordedAt)
    await update.save()
    const after = parseBaselineFile((await env.readFile(PATH)) as string, PATH)
    expect(after.entries.chat?.metrics.ttftMs.p50).toBe(file.entries.chat?.metrics.ttftMs.p50)
    expect(after.entries.chat?.otherMachines).toHaveLength(1)
    expect(after.entries.chat?.otherMachines?.[0]?.metrics.ttftMs.p50).toBe(refreshed.metrics.ttftMs.p50)
  })

  test('an entry nested in otherMachines may not hold machines of its own', () => {
    const entry = entryFor(1)
    const text = formatBaselineFile({
      schemaVersion: 1,
      entries: { chat: { ...entry, otherMachines: [{ ...entry, otherMachines: [entry] }] } },
    })
    expect(() => parseBaselineFile(text, PATH)).toThrow(
      /otherMachines\[0\]\.otherMachines is only allowed on the entry/,
    )
  })

  test('a changed load is a mismatch that names the changed option', async () => {
    const env = new MemoryEnvironment()
    const store = await BaselineStore.open(PATH, { updateMode: 'new', ci: false, environment: env })
    store.match('chat', entryFor(1))
    await store.save()
    const reopened = await BaselineStore.open(PATH, { updateMode: 'new', ci: false, environment: env })
    const match = reopened.match(
      'chat',
      entryFor(1, { config: { ...DEFAULT_CONFIG, load: { concurrency: 32, requests: 500 } } }),
    )
    expect(match.state).toBe('mismatch')
    if (match.state !== 'mismatch') return
    expect(match.error.configChanges).toEqual(['load.concurrency 16 -> 32'])
    expect(match.error.message).toContain(
      'measured a different workload or load: load.concurrency 16 -> 32. Refresh it with `vitest bench -u`',
    )
  })
})

describe('fingerprints', () => {
  test('GPU count, driver, runtime major and unknown fields count as changes; a runtime patch does not', () => {
    const base = fingerprintOf(environment())
    expect(diffMachine(base, fingerprintOf(environment({ nodeVersion: '24.9.1' })))).toEqual([])
    expect(diffMachine(base, fingerprintOf(environment({ nodeVersion: '22.12.0' })))).toEqual([
      'runtime node 24.1.0 -> node 22.12.0',
    ])
    expect(diffMachine(base, fingerprintOf(environment({ gpus: 2 })))).toEqual([
      'GPU 1 x NVIDIA A100-SXM4-80GB -> 2 x NVIDIA A100-SXM4-80GB',
    ])
    expect(diffMachine(base, fingerprintOf(environment({ driver: '560.28.03' })))).toEqual([
      'NVIDIA driver 550.54.15 -> 560.28.03',
    ])
    const noGpu = fingerprintOf({ ...environment(), gpus: [] })
    expect(diffMachine(base, noGpu)).toEqual([
      'GPU NVIDIA A100-SXM4-80GB -> none',
      'NVIDIA driver 550.54.15 -> unknown',
    ])
    expect(fingerprintOf(environment())).toEqual({
      gpuModel: 'NVIDIA A100-SXM4-80GB',
      gpuCount: 1,
      driverVersion: '550.54.15',
      serverName: 'vllm',
      serverVersion: '0.10.1',
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      runtimeName: 'node',
      runtimeVersion: '24.1.0',
      cpuModel: 'AMD EPYC 9654',
    })
  })
})

test('entries keep exact summaries of the samples (rounded to 4 digits)', () => {
  const samples = lognormalSamples(seededRandom(3), 300, 100, 0.4)
  const entry = baselineEntryFrom(makeResult({ ttftMs: samples }), { recordedAt: 'x' })
  expect(entry.metrics.ttftMs.count).toBe(300)
  expect(entry.metrics.ttftMs.p99).toBe(roundFigure(summaryOf(samples).p99))
  expect(entry.histograms.ttftUs).toMatch(/^[A-Za-z0-9+/=]+$/)
})
