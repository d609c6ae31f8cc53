import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { formatVerdict, verdictLegend } from '../core/verdict/index.ts'
import { CliUsageError, LlmBenchError } from '../core/contract/errors.ts'
import { isRecord } from '../core/contract/is-record.ts'
import type { BenchmarkResult } from '../core/contract/result.ts'
import { diffRuns, type BenchDiff, type SavedBench } from '../bench/result-diff.ts'
import type { CliCommand, CliFlagValues, CliIo } from './cli-command.ts'
import { NAME_FLAG, nameFilterOf } from './cli-command.ts'

const COMMAND = 'diff'

/** The benches of a saved run: a JSON report (`llm-bench-report/results.json`) a `vitest bench` run wrote. */
async function readSavedRun(path: string): Promise<SavedBench[]> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new LlmBenchError(
      `Cannot read ${path}: ${error instanceof Error ? error.message : String(error)}. Give the results.json a run wrote (llm-bench-report/results.json by default).`,
    )
  }
  let report: unknown
  try {
    report = JSON.parse(text)
  } catch (error) {
    throw new LlmBenchError(
      `${path} is not JSON (${error instanceof Error ? error.message : String(error)}). Give the results.json a run wrote (llm-bench-report/results.json by default).`,
    )
  }
  if (!isRecord(report) || report.tool !== 'vitest-llm-bench' || !Array.isArray(report.benches)) {
    throw new LlmBenchError(
      `${path} is not a vitest-llm-bench JSON report (no "tool": "vitest-llm-bench" with "benches"). Give the results.json the JSON reporter writes.`,
    )
  }
  return report.benches.filter(isRecord).flatMap((bench): SavedBench[] => {
    if (typeof bench.name !== 'string' || !isRecord(bench.result)) return []
    const saved: SavedBench = { name: bench.name, result: bench.result as unknown as BenchmarkResult }
    if (isRecord(bench.verdict)) saved.verdict = bench.verdict as unknown as SavedBench['verdict'] & object
    return [saved]
  })
}

function statusOf(diff: BenchDiff): string {
  if (diff.state === 'failed') return 'fail'
  return diff.state === 'compared' ? diff.verdict.status : diff.state
}

const SYMBOL: Record<string, string> = {
  pass: '✓',
  fail: '✗',
  inconclusive: '?',
  'not comparable': '≠',
  new: '+',
  gone: '-',
}

function render(diff: BenchDiff): string {
  const status = statusOf(diff)
  const head = `${SYMBOL[status] ?? ' '} ${diff.name}: ${status.toUpperCase()}`
  if (diff.state === 'new') return `${head} (only in the second run)`
  if (diff.state === 'gone') return `${head} (only in the first run)`
  const changed = diff.changed.length > 0 ? `\n  changed: ${diff.changed.join('; ')}` : ''
  if (diff.state === 'not comparable' || diff.state === 'failed')
    return `${head}${changed}\n${diff.reasons.map((reason) => `  ${reason}`).join('\n')}`
  const block = formatVerdict(diff.verdict, { legend: false })
    .replace(/^Baseline comparison: /, 'first run -> second run: ')
    .split('\n')
    .map((line) => (line === '' ? line : `  ${line}`))
    .join('\n')
  // What changed leads the verdict's own headline.
  return `${head} (${diff.gates === 'own' ? "the bench's own gates" : 'the default gates'})\n${block}`
}

/**
 * `vitest-llm-bench diff <first/results.json> <second/results.json> [-t name]`: judges the second
 * run against the first as `vitest bench` judges a run against its baseline, bench by bench, and
 * names what changed in the server between them. Exit 1 when a bench fails.
 */
async function runDiff(flags: CliFlagValues, io: CliIo, operands: readonly string[]): Promise<number> {
  if (operands.length !== 2) {
    throw new CliUsageError(
      `diff takes two saved runs, got ${operands.length}: \`vitest-llm-bench diff before/results.json after/results.json\`.`,
      COMMAND,
    )
  }
  const keep = nameFilterOf(flags.name, COMMAND)
  const [first, second] = operands.map((path) => resolve(path)) as [string, string]
  const [before, after] = await Promise.all([readSavedRun(first), readSavedRun(second)])
  const diffs = diffRuns(
    before.filter((bench) => keep(bench.name)),
    after.filter((bench) => keep(bench.name)),
  )
  if (diffs.length === 0) {
    io.err(`No bench in either run${typeof flags.name === 'string' ? ` matches -t ${flags.name}` : ''}.`)
    return 1
  }
  io.out(`${first} -> ${second}\n`)
  for (const diff of diffs) io.out(`${render(diff)}\n`)
  // What ratio and CI mean, once for every bench judged, at their levels (each verdict has its own).
  const levels = new Set(
    diffs.flatMap((diff) =>
      diff.state === 'compared' ? [`${Number((diff.verdict.confidence * 100).toPrecision(4))}%`] : [],
    ),
  )
  if (levels.size > 0) io.out(`${verdictLegend([...levels].join(' or '))}\n`)
  const counts = new Map<string, number>()
  for (const diff of diffs) counts.set(statusOf(diff), (counts.get(statusOf(diff)) ?? 0) + 1)
  const failed = counts.has('fail')
  io.out(
    `${diffs.length} bench${diffs.length === 1 ? '' : 'es'}: ${[...counts].map(([status, n]) => `${n} ${status}`).join(', ')}${failed ? ': FAILED' : ''}`,
  )
  return failed ? 1 : 0
}

export const diffCommand: CliCommand = {
  summary: 'Judge one saved run against another (results.json), bench by bench, naming what changed',
  flags: {
    name: NAME_FLAG,
  },
  operands: '<first/results.json> <second/results.json>',
  exits: '0 no bench failed; 1 a bench failed, or a report cannot be read; 2 a usage error',
  run: runDiff,
}
