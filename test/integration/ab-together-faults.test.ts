// `vitest-llm-bench ab` with its arms together: faults while both revisions' servers are up (a scripted vLLM with
// its share of GPU memory, so `auto` places the arms together). A head server killed or stopped (SIGSTOP) in the
// middle of a slice and one that never gets ready end the run naming the arm and the bench, exit 1, with comment.md
// saying why; no server process (a stopped one included) and no worktree are left.
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { expectNoProcessesWith, markerPerTest } from '../helpers/processes.ts'

const repo = fileURLToPath(new URL('../..', import.meta.url))
const fakeVllm = fileURLToPath(new URL('../fixtures/bin/vllm', import.meta.url))
const markerOf = markerPerTest('fake/ab-together')
let project = ''

const bench = (
  marker: string,
  mode: string,
  env: Record<string, string> = {},
  target = '',
): string => `import { bench, vllm } from 'vitest-llm-bench'

bench.llm('chat', {
  server: vllm({
    model: ${JSON.stringify(marker)},
    bin: ${JSON.stringify(fakeVllm)},
    args: ['--gpu-memory-utilization', '0.4'],
    env: ${JSON.stringify({ FAKE_NODE: process.execPath, FAKE_SERVER_MODE: mode, ...env })},
    stopGraceMs: 500,
    startTimeoutMs: 30_000,
  }),
  workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 4 } },
  load: { concurrency: 2, requests: 40 },${target ? `\n  target: ${target},` : ''}
})
`

const CLI = `import { runCli } from ${JSON.stringify(join(repo, 'src', 'cli.ts'))}; process.exitCode = await runCli(process.argv.slice(1))`
const gitIn = (args: string[]) =>
  execa('git', ['-c', 'user.email=ab@example.com', '-c', 'user.name=ab', ...args], { cwd: project })

/** Commits a base whose bench's server is fine, then writes head's. */
async function baseThenHead(marker: string, head: string): Promise<void> {
  await writeFile(join(project, 'chat.bench.ts'), bench(marker, 'ok'))
  await gitIn(['add', '-A'])
  await gitIn(['commit', '-qm', `base ${marker}`, '--allow-empty'])
  await writeFile(join(project, 'chat.bench.ts'), head)
}

async function ab() {
  const run = await execa(
    process.execPath,
    ['--input-type=module', '-e', CLI, '--', 'ab', '--base', 'HEAD', '--min-pairs', '2', '--max-pairs', '2'],
    { cwd: project, reject: false, all: true },
  )
  return { exitCode: run.exitCode, output: String(run.all) }
}

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'llm-bench-ab-together-'))
  const modules = join(project, 'node_modules')
  await mkdir(modules)
  for (const name of await readdir(join(repo, 'node_modules')))
    await symlink(join(repo, 'node_modules', name), join(modules, name))
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'ab-together', private: true, type: 'module' }))
  await writeFile(
    join(project, 'vitest.config.ts'),
    `import { defineConfig } from 'vitest/config'
import { llmBench } from '${join(repo, 'src', 'index.ts')}'
export default defineConfig({ plugins: [llmBench()], resolve: { alias: { 'vitest-llm-bench': '${join(repo, 'src', 'index.ts')}' } } })
`,
  )
  await writeFile(join(project, '.gitignore'), 'node_modules\nllm-bench-ab\nllm-bench-report\n')
  await gitIn(['init', '-q'])
}, 60_000)

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true })
})

describe('ab, arms together: faults with both servers up', () => {
  test('head killed in the middle of a slice: named, exit 1, comment.md says why, nothing left', async () => {
    const marker = markerOf()
    // Slices of 10 requests, base first in pair 1 (B H H B …): head's first slice completes 10, its second dies at 12.
    await baseThenHead(marker, bench(marker, 'die-after', { FAKE_SERVER_DIE_AFTER: '12' }))
    const run = await ab()
    expect(run.exitCode, run.output).toBe(1)
    expect(run.output).toContain(
      'ab: arms together (4 slices per arm and pair): the launched servers fit beside each other',
    )
    expect(run.output).toMatch(/ab: chat: pair 1, starting base\nab: chat: pair 1, starting head/)
    expect(run.output).toMatch(
      /vitest-llm-bench ab: the head arm of chat\.bench\.ts > chat ended \(vitest bench exit 1\) while both arms were up; its log is .*head-bench1\.log/,
    )
    // Then the arm's own reason: its server killed (seen after the slice), or the requests it could not serve.
    expect(run.output).toMatch(
      /head-bench1\.log:\n\s*\S.*(killed by SIGKILL|requests? failed|no request completed|ECONNREFUSED|warm-up)/,
    )
    expect(await readFile(join(project, 'llm-bench-ab', 'comment.md'), 'utf8')).toMatch(
      /the head arm of chat\.bench\.ts > chat ended/,
    )
    await expectNoProcessesWith(marker, 5000)
    expect((await gitIn(['worktree', 'list'])).stdout.trim().split('\n')).toHaveLength(1)
  }, 180_000)

  test('head stopped (SIGSTOP) while both are up: its silence named, exit 1, the stopped server killed', async () => {
    const marker = markerOf()
    // Head stops itself at its 13th completion (probe and warm-up included), in or between its first slices.
    const head = bench(marker, 'stop-after', { FAKE_SERVER_STOP_AFTER: '12' }, '{ stallTimeoutMs: 2000 }')
    await writeFile(join(project, 'chat.bench.ts'), bench(marker, 'ok', {}, '{ stallTimeoutMs: 2000 }'))
    await gitIn(['add', '-A'])
    await gitIn(['commit', '-qm', `base ${marker}`])
    await writeFile(join(project, 'chat.bench.ts'), head)
    const started = Date.now()
    const run = await ab()
    expect(run.exitCode, run.output).toBe(1)
    expect(run.output).toMatch(
      /vitest-llm-bench ab: the head arm of chat\.bench\.ts > chat ended \(vitest bench exit 1\) while both arms were up/,
    )
    // Stopped within a slice, the client names the silence; between slices, the next slice finds no answer to /health.
    expect(run.output).toMatch(/no byte from the server|stopped answering|no answer within/)
    expect(await readFile(join(project, 'llm-bench-ab', 'comment.md'), 'utf8')).toMatch(
      /the head arm of chat\.bench\.ts > chat ended/,
    )
    // The stopped server cannot act on SIGTERM: it is killed after its grace, not waited for.
    expect(Date.now() - started).toBeLessThan(90_000)
    await expectNoProcessesWith(marker, 5000)
    expect((await gitIn(['worktree', 'list'])).stdout.trim().split('\n')).toHaveLength(1)
  }, 180_000)

  test('head out of memory at its start beside base: named with its server log and what to do, nothing left', async () => {
    const marker = markerOf()
    await baseThenHead(marker, bench(marker, 'die'))
    const run = await ab()
    expect(run.exitCode, run.output).toBe(1)
    expect(run.output).toMatch(
      /the head arm of chat\.bench\.ts > chat ended \(vitest bench exit 1\) while both arms were up/,
    )
    // The server's own last lines reach the console, its secrets redacted; its out-of-memory line brings the advice.
    expect(run.output).toMatch(/exited|exit code 1|error line/i)
    expect(run.output).toContain(
      "Its server ran out of memory with the base arm's up beside it (arms together). Give each server its share",
    )
    expect(run.output).toContain('`--arms apart` (ab)')
    await expectNoProcessesWith(marker, 5000)
    expect((await gitIn(['worktree', 'list'])).stdout.trim().split('\n')).toHaveLength(1)
  }, 180_000)
})
