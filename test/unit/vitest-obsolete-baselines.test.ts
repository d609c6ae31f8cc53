import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { TestModule } from 'vitest/node'
import { BaselineStore, baselineEntryFrom, baselinePathFor } from '../../src/core/baseline/index.ts'
import { benchFileNamesOf, formatObsoleteBaselines } from '../../src/vitest/obsolete-baselines.ts'
import { reconcileObsoleteBaselines, type BenchFileNames } from '../../src/bench/obsolete-baselines.ts'
import { lognormalSamples, makeResult, seededRandom } from '../helpers/baseline-fixtures.ts'

let dir = ''
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'llm-bench-obsolete-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const entry = baselineEntryFrom(makeResult({ ttftMs: lognormalSamples(seededRandom(1), 50, 100, 0.2) }))

async function writeBaselines(file: string, names: string[]): Promise<string> {
  const path = baselinePathFor(file)
  const store = await BaselineStore.open(path, { updateMode: 'all', ci: false })
  for (const name of names) store.set(name, entry)
  await store.save()
  return path
}

async function storedNames(path: string): Promise<string[]> {
  return Object.keys((JSON.parse(await readFile(path, 'utf8')) as { entries: Record<string, unknown> }).entries).sort()
}

function run(file: string, names: string[], complete = true): BenchFileNames {
  return { file, names: new Set(names), complete }
}

describe('reconcileObsoleteBaselines', () => {
  test('lists entries whose bench did not run and keeps them without -u', async () => {
    const file = join(dir, 'list.bench.ts')
    const path = await writeBaselines(file, ['chat > a', 'chat > gone', 'old'])
    const found = await reconcileObsoleteBaselines([run(file, ['chat > a', 'unrelated test'])], { update: 'new' })
    expect(found).toEqual([{ path, benchFile: file, names: ['chat > gone', 'old'], removed: false }])
    expect(await storedNames(path)).toEqual(['chat > a', 'chat > gone', 'old'])
    expect(formatObsoleteBaselines(found[0] as never, dir)).toBe(
      'Obsolete baseline entries in __llm_baselines__/list.bench.ts.json: chat > gone, old (run `npx vitest bench list.bench.ts -u` to remove them)',
    )
  })

  test('under -u removes them and keeps the rest', async () => {
    const file = join(dir, 'update.bench.ts')
    const path = await writeBaselines(file, ['a', 'b', 'c'])
    const found = await reconcileObsoleteBaselines([run(file, ['b'])], { update: 'all' })
    expect(found).toEqual([{ path, benchFile: file, names: ['a', 'c'], removed: true }])
    expect(await storedNames(path)).toEqual(['b'])
    expect(formatObsoleteBaselines(found[0] as never, dir)).toBe(
      'Removed obsolete baseline entries from __llm_baselines__/update.bench.ts.json: a, c',
    )
  })

  test('many obsolete names: ten listed, the rest counted', () => {
    const names = Array.from({ length: 9000 }, (_, i) => `bench ${String(i).padStart(4, '0')}`)
    const line = formatObsoleteBaselines(
      {
        path: join(dir, '__llm_baselines__/many.bench.ts.json'),
        benchFile: join(dir, 'many.bench.ts'),
        names,
        removed: true,
      },
      dir,
    )
    expect(line).toBe(
      `Removed obsolete baseline entries from __llm_baselines__/many.bench.ts.json: ${names.slice(0, 10).join(', ')} and 8990 more`,
    )
  })

  test('leaves files that did not run completely alone, even under -u', async () => {
    const file = join(dir, 'partial.bench.ts')
    const path = await writeBaselines(file, ['a', 'b'])
    expect(await reconcileObsoleteBaselines([run(file, ['a'], false)], { update: 'all' })).toEqual([])
    expect(await storedNames(path)).toEqual(['a', 'b'])
  })

  test('says nothing when every entry ran, when there is no baseline file, or when the file does not parse', async () => {
    const file = join(dir, 'clean.bench.ts')
    await writeBaselines(file, ['a'])
    const broken = join(dir, 'broken.bench.ts')
    await mkdir(join(dir, '__llm_baselines__'), { recursive: true })
    await writeFile(baselinePathFor(broken), 'not json')
    const found = await reconcileObsoleteBaselines(
      [run(file, ['a']), run(join(dir, 'none.bench.ts'), []), run(broken, [])],
      { update: 'all' },
    )
    expect(found).toEqual([])
    expect(await readFile(baselinePathFor(broken), 'utf8')).toBe('not json')
  })

  test('honours a custom baseline folder', async () => {
    const file = join(dir, 'custom.bench.ts')
    const path = baselinePathFor(file, 'perf-baselines')
    const store = await BaselineStore.open(path, { updateMode: 'all', ci: false })
    store.set('gone', entry)
    await store.save()
    const found = await reconcileObsoleteBaselines([run(file, [])], { update: 'new', baselineDir: 'perf-baselines' })
    expect(found).toEqual([{ path, benchFile: file, names: ['gone'], removed: false }])
  })
})

interface FakeTest {
  fullName: string
  state: 'passed' | 'failed' | 'skipped' | 'pending'
}

function fakeModule(
  moduleId: string,
  state: string,
  tests: FakeTest[],
  options: { errors?: number; suiteErrors?: number } = {},
): TestModule {
  return {
    moduleId,
    state: () => state,
    errors: () => Array.from({ length: options.errors ?? 0 }, () => ({ message: 'boom' })),
    children: {
      *allSuites() {
        yield {
          errors: () => Array.from({ length: options.suiteErrors ?? 0 }, () => ({ message: 'describe threw' })),
          state: () => 'passed',
        }
      },
      *allTests() {
        for (const t of tests) yield { fullName: t.fullName, result: () => ({ state: t.state }) }
      },
    },
  } as unknown as TestModule
}

describe('benchFileNamesOf', () => {
  test('collects every test name, skipped ones included, and marks clean finished modules complete', () => {
    const [names] = benchFileNamesOf([
      fakeModule('/x/a.bench.ts', 'passed', [
        { fullName: 'g > one', state: 'passed' },
        { fullName: 'g > two', state: 'skipped' },
        { fullName: 'three', state: 'failed' },
      ]),
    ])
    expect(names?.complete).toBe(true)
    expect([...(names?.names ?? [])]).toEqual(['g > one', 'g > two', 'three'])
  })

  test('a module with a collection error, a throwing describe, a pending test or still queued is incomplete', () => {
    const files = benchFileNamesOf([
      fakeModule('/x/err.bench.ts', 'failed', [], { errors: 1 }),
      fakeModule('/x/suite.bench.ts', 'failed', [{ fullName: 'a', state: 'passed' }], { suiteErrors: 1 }),
      fakeModule('/x/pending.bench.ts', 'failed', [{ fullName: 'a', state: 'pending' }]),
      fakeModule('/x/queued.bench.ts', 'queued', []),
      fakeModule('/x/skipped.bench.ts', 'skipped', [{ fullName: 'a', state: 'skipped' }]),
    ])
    expect(files.map((f) => [f.file, f.complete])).toEqual([
      ['/x/err.bench.ts', false],
      ['/x/suite.bench.ts', false],
      ['/x/pending.bench.ts', false],
      ['/x/queued.bench.ts', false],
      ['/x/skipped.bench.ts', true],
    ])
  })

  test('one file run by two projects: names are merged, complete only if both runs were', () => {
    const files = benchFileNamesOf([
      fakeModule('/x/a.bench.ts', 'passed', [{ fullName: 'one', state: 'passed' }]),
      fakeModule('/x/a.bench.ts', 'failed', [{ fullName: 'two', state: 'passed' }], { errors: 1 }),
    ])
    expect(files).toHaveLength(1)
    expect([...(files[0]?.names ?? [])].sort()).toEqual(['one', 'two'])
    expect(files[0]?.complete).toBe(false)
  })
})
