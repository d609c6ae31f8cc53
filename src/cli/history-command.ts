import { mkdir, writeFile } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import { historyTable } from '../../reporters/history-table.ts'
import { renderHistoryPage } from '../../reporters/html/history-page.ts'
import { benchFileOf, historiesOfBaselines, withKeptResults } from '../core/history/bench-histories.ts'
import { CHANGE_POINT_METHOD, DEFAULT_MAX_P_VALUE, DEFAULT_WINDOW_LENGTH } from '../core/history/change-points.ts'
import { baselineFileHistory, repositoryRoot, trackedBaselineFiles } from '../core/history/git-baselines.ts'
import { HistoryError } from '../core/history/history-error.ts'
import { analyseHistory } from '../core/history/history-analysis.ts'
import { readKeptResults } from '../core/history/results-folder.ts'
import type { BenchHistory } from '../core/history/history-point.ts'
import type { CliCommand, CliFlagValues, CliIo } from './cli-command.ts'
import { NAME_FLAG, nameFilterOf } from './cli-command.ts'

const COMMAND = 'history'

/** The history page's file name inside `--out`. */
const PAGE_NAME = 'history.html'

/** Keeps a path that contains an operand as given or as a path from the repository root (as Vitest's file filters). */
function fileFilter(operands: readonly string[], cwd: string, root: string): (path: string) => boolean {
  if (operands.length === 0) return () => true
  const forms = operands.flatMap((operand) => [operand, relative(root, resolve(cwd, operand))]).filter(Boolean)
  return (path) => forms.some((form) => path.includes(form))
}

/**
 * `vitest-llm-bench history [files] [-t name] [--results <dir>] [--out <dir>]`: the history of each
 * bench from the committed versions of its baseline file (and kept results.json files), as a table
 * per bench and an HTML page, change points flagged with their p-value. Exit 0: it judges nothing.
 */
async function runHistory(flags: CliFlagValues, io: CliIo, operands: readonly string[]): Promise<number> {
  const cwd = process.cwd()
  const keepName = nameFilterOf(flags.name, COMMAND)
  const root = await repositoryRoot(cwd)
  const keepFile = fileFilter(operands, cwd, root)
  const paths = await trackedBaselineFiles(root)
  if (paths.length === 0 && typeof flags.results !== 'string') {
    throw new HistoryError(
      `No committed baseline file (__llm_baselines__/*.json) in ${root}: record baselines with ` +
        '`vitest bench -u`, commit them, then run history again (or give --results <dir>).',
    )
  }
  const files = await Promise.all(
    paths
      .filter((path) => keepFile(path) || keepFile(benchFileOf(path)))
      .map((path) => baselineFileHistory(root, path)),
  )
  let histories: BenchHistory[] = historiesOfBaselines(files)
  const skipped = files.flatMap((file) => file.skipped)
  if (typeof flags.results === 'string') {
    const kept = await readKeptResults(resolve(cwd, flags.results), cwd)
    skipped.push(...kept.skipped)
    const wanted = kept.results.filter((result) => keepFile(result.file))
    histories = withKeptResults(histories, wanted, root, cwd)
  }
  histories = histories.filter((history) => keepName(history.name))
  if (histories.length === 0) {
    const filters = [...operands, ...(typeof flags.name === 'string' ? [`-t ${flags.name}`] : [])]
    const matching = filters.length > 0 ? ` matches ${filters.join(' ')}` : ''
    throw new HistoryError(
      `No bench history${matching} in ${root}: check the bench file and name filters ` +
        `(the baseline files are ${paths.join(', ') || 'none'}).`,
    )
  }
  const maxPValue = typeof flags['max-p'] === 'number' ? flags['max-p'] : DEFAULT_MAX_P_VALUE
  const windowLength = typeof flags.window === 'number' ? flags.window : DEFAULT_WINDOW_LENGTH
  const analyses = histories.map((history) => analyseHistory(history, { maxPValue, windowLength }))
  const method = `${CHANGE_POINT_METHOD}, windows of ${windowLength} points, Student t-test p < ${maxPValue}`
  io.out(`History of ${analyses.length} bench${analyses.length === 1 ? '' : 'es'} in ${root}`)
  io.out(`Change points: ${method}, between fingerprint changes`)
  io.out('(⚑: another machine, server, model, launch or bench config: shown, never judged)\n')
  for (const analysis of analyses) io.out(`${historyTable(analysis)}\n`)
  for (const reason of skipped) io.out(`skipped ${reason}`)
  const outDir = resolve(cwd, typeof flags.out === 'string' ? flags.out : 'llm-bench-report')
  await mkdir(outDir, { recursive: true })
  const page = join(outDir, PAGE_NAME)
  await writeFile(page, renderHistoryPage(analyses, { method, repository: root }))
  io.out(`HTML: ${relative(cwd, page) || page}`)
  return 0
}

export const historyCommand: CliCommand = {
  summary: 'Each bench over the commits of its baseline file (and kept results.json), change points flagged',
  exits: '0 the history was printed (it judges nothing); 1 no git repository or no history; 2 a usage error',
  flags: {
    name: NAME_FLAG,
    results: {
      type: 'string',
      description: 'A folder of results.json files kept by CI, read as more points (subfolders too)',
    },
    out: { type: 'string', description: `Folder for ${PAGE_NAME}`, default: 'llm-bench-report' },
    'max-p': {
      type: 'number',
      min: 0,
      max: 1,
      description: 'A change point needs a p-value (Student t) below this',
      default: DEFAULT_MAX_P_VALUE,
    },
    window: {
      type: 'integer',
      min: 4,
      description: 'Points per sliding window of the change-point search',
      default: DEFAULT_WINDOW_LENGTH,
    },
  },
  operands: '[bench or baseline files]',
  run: runHistory,
}
