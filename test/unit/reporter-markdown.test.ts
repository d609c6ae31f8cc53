import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { LlmMarkdownReporter, renderMarkdown } from '../../reporters/index.ts'
import { githubRunUrl } from '../../reporters/markdown-reporter.ts'
import { toJsonReport } from '../../reporters/json-report.ts'
import { renderHtml } from '../../reporters/html/html-report.ts'
import { collectReport } from '../../reporters/file-reporter.ts'
import {
  JsonSchemaValidator,
  BENCHMARK_RESULT_SCHEMA,
  REPORT_SCHEMA,
  REPORT_SCHEMA_ID,
} from '../../src/core/contract/json-schema/index.ts'
import { moduleOf, reportEntries } from '../helpers/reporter-fixtures.ts'

describe('renderMarkdown', () => {
  test('summary for a pull request matches the snapshot', () => {
    expect(
      renderMarkdown(reportEntries(), { htmlReportUrl: 'https://example.com/run/1/report.html' }),
    ).toMatchSnapshot()
  })

  test('one summary row per bench with deltas, then baseline vs current per bench', () => {
    const markdown = renderMarkdown(reportEntries())
    const rows = markdown.split('\n').filter((line) => /^\| (✅|❌|⚠️|⏭️) \|/.test(line))
    expect(rows).toHaveLength(3)
    expect(rows[1]).toContain('| ❌ | chat > poisson arrivals, 20 req/s |')
    expect(rows[1]).toContain('393 ms (+73.8% ❌)')
    expect(markdown.startsWith('## LLM benchmarks: ❌ 1 fail, ✅ 2 pass\n')).toBe(true)
    expect(markdown).toContain('| TTFT p99 | 226.2 ms | 393 ms | +73.8% | 1.618 – 1.858 | +10% | 400/397 | ❌ fail |')
    expect(markdown).toContain(
      '| output tokens/s | 1077 tok/s | 1062 tok/s | -1.3% | 0.957 – 1.017 | -10% | 12/12 | ✅ pass |',
    )
    expect(markdown).toContain('| errors maxRate | 0% | ≤ 0% | 500 | ✅ pass |')
    expect(markdown).toContain('- TPOT p50: interval straddles the limit; more requests would settle it')
    // Configuration and environment beside the numbers.
    expect(markdown).toContain('| config.load.concurrency | 16 |')
    expect(markdown).toContain('| gpus | 2x NVIDIA H100 80GB HBM3 (driver 550.54.15) |')
    expect(markdown).not.toContain('HTML report')
  })

  test('escapes pipes in table cells', () => {
    const [entry] = reportEntries()
    const markdown = renderMarkdown([{ ...entry!, name: 'a | b' }])
    expect(markdown).toContain('| ✅ | a \\| b |')
  })

  test('says so when no bench ran', () => {
    expect(renderMarkdown([])).toBe('## LLM benchmarks\n\nNo LLM benches ran.\n')
  })
})

describe('LlmMarkdownReporter', () => {
  let dir: string
  const saved = { ...process.env }
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'llm-md-'))
  })
  afterEach(async () => {
    for (const key of ['GITHUB_STEP_SUMMARY', 'GITHUB_SERVER_URL', 'GITHUB_REPOSITORY', 'GITHUB_RUN_ID']) {
      if (saved[key] === undefined) delete process.env[key]
      else process.env[key] = saved[key]
    }
    await rm(dir, { recursive: true, force: true })
  })

  test('writes the file and appends to $GITHUB_STEP_SUMMARY with a link to the run', async () => {
    const summary = join(dir, 'step-summary.md')
    await writeFile(summary, '# earlier step\n')
    process.env.GITHUB_STEP_SUMMARY = summary
    process.env.GITHUB_SERVER_URL = 'https://github.com'
    process.env.GITHUB_REPOSITORY = 'acme/serving'
    process.env.GITHUB_RUN_ID = '42'
    const reporter = new LlmMarkdownReporter({ outputFile: join(dir, 'out', 'summary.md') })
    await reporter.onTestRunEnd([moduleOf(reportEntries())])
    const file = await readFile(join(dir, 'out', 'summary.md'), 'utf8')
    expect(file).toContain('## LLM benchmarks: ❌ 1 fail, ✅ 2 pass')
    expect(file).toContain('[HTML report (in this run’s artifacts)](https://github.com/acme/serving/actions/runs/42)')
    const step = await readFile(summary, 'utf8')
    expect(step.startsWith('# earlier step\n## LLM benchmarks')).toBe(true)
  })

  test('writes nothing when no bench ran (a unit-test run must not clobber the last report)', async () => {
    const reporter = new LlmMarkdownReporter({ outputFile: join(dir, 'summary.md') })
    await reporter.onTestRunEnd([moduleOf([])])
    await expect(readFile(join(dir, 'summary.md'), 'utf8')).rejects.toThrow(/ENOENT/)
  })

  test('a run whose benches all failed before measuring replaces the last summary with one that says so', async () => {
    const path = join(dir, 'summary.md')
    await writeFile(path, '## LLM benchmarks: ✅ 3 pass (the previous run)\n')
    const module = { moduleId: '/repo/benches/chat.bench.ts', relativeModuleId: 'benches/chat.bench.ts' }
    const failed = {
      fullName: 'chat > steady',
      module,
      meta: () => ({ llmBenchStarted: true }),
      result: () => ({
        state: 'failed',
        errors: [{ message: 'llama-server did not become ready within 30 s.\nIts last log lines: ...' }],
      }),
    }
    const plainTest = {
      fullName: 'a unit test',
      module,
      meta: () => ({}),
      result: () => ({ state: 'failed', errors: [{ message: 'boom' }] }),
    }
    const modules = [
      {
        children: {
          *allTests() {
            yield failed
            yield plainTest
          },
        },
      },
    ] as never
    await new LlmMarkdownReporter({ outputFile: path, stepSummary: false }).onTestRunEnd(modules)
    const text = await readFile(path, 'utf8')
    expect(text.split('\n')[0]).toBe('## LLM benchmarks: ❌ 1 failed without a result')
    expect(text).toContain('No LLM bench produced a result in this run.')
    expect(text).toContain('### ❌ chat > steady: no result')
    expect(text).toContain('llama-server did not become ready within 30 s.')
    expect(text).not.toContain('a unit test')

    const { unmeasured } = collectReport(modules)
    expect(unmeasured).toEqual([
      {
        name: 'chat > steady',
        file: 'benches/chat.bench.ts',
        failure: 'llama-server did not become ready within 30 s.\nIts last log lines: ...',
      },
    ])
    const json = JSON.parse(JSON.stringify(toJsonReport([], { unmeasured }))) as unknown
    expect(json).toMatchObject({ benches: [], unmeasured })
    expect(new JsonSchemaValidator([BENCHMARK_RESULT_SCHEMA, REPORT_SCHEMA]).validate(REPORT_SCHEMA_ID, json)).toEqual(
      [],
    )
    const html = renderHtml([], { unmeasured, generatedAt: '2026-12-01T00:00:00.000Z' })
    expect(html).toContain('0 benches · 1 failed without a result · generated')
    expect(html).toContain('chat &gt; steady: no result')
    // A run with no bench at all still writes nothing (unit tests sharing the config).
    await rm(path)
    await new LlmMarkdownReporter({ outputFile: path, stepSummary: false }).onTestRunEnd([
      {
        children: {
          *allTests() {
            yield plainTest
          },
        },
      },
    ] as never)
    await expect(readFile(path, 'utf8')).rejects.toThrow(/ENOENT/)
  })

  test('githubRunUrl needs server, repository and run id', () => {
    expect(
      githubRunUrl({ GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'a/b', GITHUB_RUN_ID: '7' }),
    ).toBe('https://github.com/a/b/actions/runs/7')
    expect(githubRunUrl({ GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'a/b' })).toBeUndefined()
  })
})
