import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, describe, expect, test } from 'vitest'
import { checkoutRevision as checkoutBase } from '../../src/cli/ab-checkout.ts'

const made: string[] = []
afterAll(async () => {
  for (const dir of made) await rm(dir, { recursive: true, force: true })
})

const lock = (name: string) =>
  `${JSON.stringify({ name, lockfileVersion: 3, requires: true, packages: { '': { name } } }, null, 2)}\n`

describe('checkoutBase', () => {
  test('a base whose package-lock.json differs: npm ci is said before it runs and timed after', async () => {
    const root = await mkdtemp(join(tmpdir(), 'llm-bench-ab-checkout-'))
    const work = await mkdtemp(join(tmpdir(), 'llm-bench-ab-work-'))
    made.push(root, work)
    const git = (args: string[]) =>
      execa('git', ['-c', 'user.email=ab@example.com', '-c', 'user.name=ab', ...args], { cwd: root })
    await writeFile(join(root, 'package.json'), JSON.stringify({ name: 'base-pkg', private: true }))
    await writeFile(join(root, 'package-lock.json'), lock('base-pkg'))
    await git(['init', '-q'])
    await git(['add', '-A'])
    await git(['commit', '-qm', 'base'])
    const sha = (await git(['rev-parse', 'HEAD'])).stdout.trim()
    // The working tree's lock file differs (another name): the base's dependencies are installed, not linked.
    await writeFile(join(root, 'package-lock.json'), lock('head-pkg'))
    await mkdir(join(root, 'node_modules'))
    const said: string[] = []
    const base = await checkoutBase(root, root, sha, work, (line) => said.push(line))
    try {
      expect(said).toEqual([
        "ab: package-lock.json differs from the working tree's: installing the base revision's dependencies (npm ci)",
      ])
      expect(base.dependencies).toMatch(/^installed with npm ci in \d+ s \(package-lock\.json differs/)
    } finally {
      await git(['worktree', 'remove', '--force', base.tree])
    }
  }, 60_000)
})
