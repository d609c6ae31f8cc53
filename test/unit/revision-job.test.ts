import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, describe, expect, test } from 'vitest'
import { AbError } from '../../src/cli/ab-error.ts'
import { pairsAsked, runRevisionJob } from '../../src/cli/revision-job.ts'
import { memoryIo as io } from '../helpers/memory-io.ts'

const made: string[] = []
afterAll(async () => {
  for (const dir of made) await rm(dir, { recursive: true, force: true })
})

/** A git repository of one commit with a package and its node_modules; its HEAD. */
async function repository(): Promise<{ root: string; sha: string; git: (args: string[]) => Promise<string> }> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'llm-bench-job-')))
  made.push(root)
  const git = async (args: string[]) =>
    (await execa('git', ['-c', 'user.email=j@example.com', '-c', 'user.name=j', ...args], { cwd: root })).stdout.trim()
  await writeFile(join(root, 'package.json'), JSON.stringify({ name: 'job-pkg', private: true }))
  await writeFile(join(root, '.gitignore'), 'node_modules\n')
  await mkdir(join(root, 'node_modules'))
  await git(['init', '-q'])
  await git(['add', '-A'])
  await git(['commit', '-qm', 'one'])
  return { root, sha: await git(['rev-parse', 'HEAD']), git }
}

describe('pairsAsked', () => {
  const flags = { 'min-pairs': 3, arms: 'auto', slices: 4, 'budget-min': 30 }
  test('the pair flags read once, max pairs left to the placement when not given', () => {
    expect(pairsAsked({ ...flags, name: 'chat' })).toEqual({
      name: 'chat',
      asked: 'auto',
      slices: 4,
      minPairs: 3,
      maxPairs: undefined,
      budgetMs: 1_800_000,
    })
  })
  test('max pairs below min pairs is a usage error, for ab and bisect alike', () => {
    expect(pairsAsked({ ...flags, 'max-pairs': 2 })).toEqual({ usage: '--max-pairs (2) is below --min-pairs (3).' })
  })
})

describe('runRevisionJob', () => {
  test('a revision checked out once, and every worktree and the scratch folder gone after', async () => {
    const { root, sha, git } = await repository()
    let scratch = ''
    const code = await runRevisionJob(
      { command: 'test', io: io(), packageDir: root, unfinished: async () => undefined, errorExit: 2 },
      async (job) => {
        scratch = job.work
        expect(job.root).toBe(root)
        const first = await job.checkout(sha, 'r-one')
        expect(await job.checkout(sha, 'r-one')).toBe(first)
        expect(existsSync(join(first.dir, 'package.json'))).toBe(true)
        return 0
      },
    )
    expect(code).toBe(0)
    expect(existsSync(scratch)).toBe(false)
    expect(await git(['worktree', 'list'])).not.toContain('r-one')
  })

  test('a step that cannot go on: said, left for CI, the error exit, nothing left behind, no signal held', async () => {
    const { root, sha, git } = await repository()
    const said = io()
    const left: string[] = []
    const listeners = process.listenerCount('SIGTERM')
    const code = await runRevisionJob(
      { command: 'test', io: said, packageDir: root, unfinished: async (m) => void left.push(m), errorExit: 2 },
      async (job) => {
        await job.checkout(sha, 'base')
        expect(process.listenerCount('SIGTERM')).toBe(listeners + 1)
        throw new AbError('the base revision has no bench: add one first')
      },
    )
    expect(code).toBe(2)
    expect(said.errors).toEqual(['vitest-llm-bench test: the base revision has no bench: add one first'])
    expect(left).toEqual(['the base revision has no bench: add one first'])
    expect(await git(['worktree', 'list'])).not.toContain('base')
    expect(process.listenerCount('SIGTERM')).toBe(listeners)
  })

  test('any other error is not ours to word: it is thrown, and still nothing is left behind', async () => {
    const { root, sha, git } = await repository()
    await expect(
      runRevisionJob(
        { command: 'test', io: io(), packageDir: root, unfinished: async () => undefined, errorExit: 2 },
        async (job) => {
          await job.checkout(sha, 'base')
          throw new TypeError('a bug')
        },
      ),
    ).rejects.toThrow('a bug')
    expect(await git(['worktree', 'list'])).not.toContain('base')
  })
})
