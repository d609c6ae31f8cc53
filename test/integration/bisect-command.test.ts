/**
 * `vitest-llm-bench bisect --good <ref> --bad <ref>` on scratch repositories whose bench launches the simulator:
 * the commit that slows it is named, a range without a regression is "not confirmed" after one verdict, and a
 * commit whose bench file does not load is skipped and named while the culprit is still found.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { afterAll, describe, expect, test } from 'vitest'

const repo = fileURLToPath(new URL('../..', import.meta.url))
const projects: string[] = []
afterAll(async () => {
  for (const project of projects) await rm(project, { recursive: true, force: true })
})

const bench = (speed: number): string => `import { bench, simulator } from 'vitest-llm-bench'

bench.llm('chat', {
  server: simulator({ prefillBaseMs: 20, prefillMsPerToken: 0.02, decodeBaseMs: 2, decodeMsPerSequence: 0.1, speedFactor: ${speed} }),
  workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 8 } },
  load: { concurrency: 2, requests: 32 },
})
`

const CLI = `import { runCli } from ${JSON.stringify(join(repo, 'src', 'cli.ts'))}; process.exitCode = await runCli(process.argv.slice(1))`

/** A git project whose commits write the given files, one commit per entry; returns it and each commit's hash. */
async function projectOf(commits: Array<{ subject: string; files: Record<string, string> }>) {
  const project = await mkdtemp(join(tmpdir(), 'llm-bench-bisect-'))
  projects.push(project)
  const modules = join(project, 'node_modules')
  await mkdir(modules)
  for (const name of await readdir(join(repo, 'node_modules')))
    await symlink(join(repo, 'node_modules', name), join(modules, name))
  const entry = join(repo, 'src', 'index.ts')
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'bisect-e2e', private: true, type: 'module' }))
  await writeFile(
    join(project, 'vitest.config.ts'),
    `import { defineConfig } from 'vitest/config'\nimport { llmBench } from '${entry}'\nexport default defineConfig({ plugins: [llmBench()], resolve: { alias: { 'vitest-llm-bench': '${entry}' } } })\n`,
  )
  await writeFile(join(project, '.gitignore'), 'node_modules\nllm-bench-bisect\nllm-bench-report\n')
  const git = (args: string[]) =>
    execa('git', ['-c', 'user.email=b@example.com', '-c', 'user.name=b', ...args], { cwd: project })
  await git(['init', '-q'])
  const shas: string[] = []
  for (const commit of commits) {
    for (const [file, text] of Object.entries(commit.files)) await writeFile(join(project, file), text)
    await git(['add', '-A'])
    await git(['commit', '-qm', commit.subject])
    shas.push((await git(['rev-parse', 'HEAD'])).stdout.trim())
  }
  const bisect = async (...args: string[]) => {
    const run = await execa(
      process.execPath,
      ['--input-type=module', '-e', CLI, '--', 'bisect', '--min-pairs', '2', '--max-pairs', '3', ...args],
      { cwd: project, reject: false, all: true },
    )
    const report = JSON.parse(await readFile(join(project, 'llm-bench-bisect', 'bisect.json'), 'utf8')) as {
      exit: number
      steps: Array<{ head: { subject: string }; outcome: string }>
      culprit?: { sha: string; subject: string; files: string[] }
      skipped: Array<{ subject: string }>
    }
    return { exitCode: run.exitCode, output: String(run.all), report }
  }
  return { project, shas, bisect }
}

const note = (n: number) => ({ 'notes.txt': `unrelated change ${n}\n` })

describe('vitest-llm-bench bisect', () => {
  test('six commits, the fourth slows the server 2.5x: it is named, with its files; a range without it is not confirmed', async () => {
    const { shas, bisect } = await projectOf([
      { subject: 'c1 the bench', files: { 'chat.bench.ts': bench(1), ...note(1) } },
      { subject: 'c2 docs', files: note(2) },
      { subject: 'c3 docs', files: note(3) },
      { subject: 'c4 slower server', files: { 'chat.bench.ts': bench(2.5) } },
      { subject: 'c5 docs', files: note(5) },
      { subject: 'c6 docs', files: note(6) },
    ])
    const found = await bisect('--good', shas[0] as string, '--bad', 'HEAD')
    // On a busy machine (every pair disturbed) a step may stay undecided: then it must say so (exit 1 or 2).
    if (found.exitCode !== 0 && /disturbed machine/.test(found.output)) return
    expect(found.exitCode, found.output).toBe(0)
    expect(found.report.culprit?.subject).toBe('c4 slower server')
    expect(found.report.culprit?.sha).toBe(shas[3])
    expect(found.report.culprit?.files).toEqual(['chat.bench.ts'])
    expect(found.output).toMatch(/bisect: first bad commit [0-9a-f]{12} c4 slower server/)
    expect(found.output).toMatch(/chat: ttftMs p50 2\.\d{3}x \[/)
    // The regression first (bad against good), then 5 commits in at most 3 steps.
    expect(found.report.steps[0]?.head.subject).toBe('c6 docs')
    expect(found.report.steps.length).toBeLessThanOrEqual(4)

    const none = await bisect('--good', shas[0] as string, '--bad', shas[2] as string)
    expect(none.exitCode, none.output).toBe(1)
    expect(none.report.steps).toHaveLength(1)
    expect(none.output).toContain('bisect: not confirmed')
  }, 400_000)

  test('a commit whose bench file does not load is skipped and named; the culprit is still found', async () => {
    const { project, shas, bisect } = await projectOf([
      { subject: 'c1 the bench', files: { 'chat.bench.ts': bench(1), ...note(1) } },
      { subject: 'c2 docs', files: note(2) },
      { subject: 'c3 broken bench', files: { 'chat.bench.ts': `${bench(1)}\nthis is not TypeScript (\n` } },
      { subject: 'c4 fixed bench', files: { 'chat.bench.ts': bench(1) } },
      { subject: 'c5 slower server', files: { 'chat.bench.ts': bench(2.5) } },
      { subject: 'c6 docs', files: note(6) },
    ])
    const found = await bisect('--good', shas[0] as string, '--bad', 'HEAD')
    // On a busy machine (every pair disturbed) a step may stay undecided: then it must say so (exit 1 or 2).
    if (found.exitCode !== 0 && /disturbed machine/.test(found.output)) return
    expect(found.exitCode, found.output).toBe(0)
    expect(found.report.culprit?.subject).toBe('c5 slower server')
    expect(found.report.skipped.map((c) => c.subject)).toEqual(['c3 broken bench'])
    expect(found.report.steps.find((s) => s.head.subject === 'c3 broken bench')?.outcome).toBe('skipped')
    const comment = await readFile(join(project, 'llm-bench-bisect', 'comment.md'), 'utf8')
    expect(comment).toMatch(/^### vitest-llm-bench bisect: first bad commit `[0-9a-f]{12}` c5 slower server/)
    expect(comment).toContain('Skipped (could not be judged): `')
  }, 400_000)
})
