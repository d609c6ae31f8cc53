import { writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { renderConsoleEntry } from '../../reporters/console-table.ts'
import type { ReportEntry } from '../../reporters/report-entry.ts'
import { judgeBench } from '../bench/bench-judgement.ts'
import { isCI } from '../bench/ci.ts'
import { readSegmentFiles, type SegmentFile } from '../bench/segment-file.ts'
import { restoreParsedPolicy } from '../core/baseline/index.ts'
import { mergeSegments } from '../core/trials/index.ts'
import type { CliCommand, CliFlagValues, CliIo } from './cli-command.ts'

/** One merged bench, as `--out` writes it. */
interface MergedBench {
  file: string
  name: string
  segments: number
  refusals: string[]
  verdict: string
  result: ReportEntry['result']
}

function groupsOf(files: ReadonlyArray<{ path: string; segment: SegmentFile }>): Map<string, SegmentFile[]> {
  const groups = new Map<string, SegmentFile[]>()
  for (const { segment } of files) {
    const key = `${segment.file}\u0000${segment.name}`
    groups.set(key, [...(groups.get(key) ?? []), segment])
  }
  return groups
}

/**
 * `vitest-llm-bench merge --dir <folder>`: merges the segment files of each bench that the hosts of
 * one segmented run wrote (docs/distributed.md), refuses a verdict when the segments do not make
 * the planned load, else judges the merged result against the bench's baseline as `vitest bench`
 * would (`--update` records it). Exit 1 on a refusal or a failed verdict.
 */
async function runMerge(flags: CliFlagValues, io: CliIo): Promise<number> {
  const dir = resolve(String(flags.dir))
  const files = await readSegmentFiles(dir)
  if (files.length === 0) {
    io.err(`No segment file in ${dir}. A bench run with LLM_BENCH_SEGMENT=i/N writes one per bench into LLM_BENCH_SEGMENT_DIR (default llm-bench-segments/); collect every host's folder here.`)
    return 1
  }
  const update = flags.update === true ? 'all' : isCI() ? 'none' : 'new'
  const baselineDir = typeof flags['baseline-dir'] === 'string' ? resolve(flags['baseline-dir']) : process.env.LLM_BENCH_BASELINE_DIR
  const ci = isCI()
  const merged: MergedBench[] = []
  let failed = false
  for (const segments of groupsOf(files).values()) {
    const first = segments[0] as SegmentFile
    const { result, refusals } = mergeSegments(segments.map((s) => s.result))
    const entry: ReportEntry = { name: first.name, file: first.file, state: 'passed', result }
    let verdict = 'refused'
    if (refusals.length > 0) {
      failed = true
      entry.state = 'failed'
      entry.notes = refusals.map((why) => `no verdict: ${why}`)
    } else {
      const policy = first.policy === false ? false : restoreParsedPolicy(first.policy, first.file)
      const judgement = await judgeBench({
        name: first.name,
        file: resolve(first.file),
        result,
        slo: first.slo,
        policy,
        provided: { update, ci, ...(baselineDir ? { baselineDir } : {}) },
      })
      verdict = judgement.verdict?.status ?? judgement.baselineState ?? 'no baseline'
      if (judgement.verdict) entry.verdict = judgement.verdict
      if (judgement.baselineState) entry.baselineState = judgement.baselineState
      if (judgement.sloChecks.length > 0) entry.sloChecks = judgement.sloChecks
      entry.notes = judgement.notes
      if (judgement.failure !== undefined) {
        failed = true
        entry.state = 'failed'
        entry.failure = judgement.failure
      }
    }
    io.out(renderConsoleEntry(entry))
    if (entry.failure) io.out(entry.failure)
    io.out('')
    merged.push({ file: first.file, name: first.name, segments: segments.length, refusals, verdict, result })
  }
  if (typeof flags.out === 'string') {
    await writeFile(resolve(flags.out), `${JSON.stringify({ tool: 'vitest-llm-bench', merged }, null, 2)}\n`)
    io.out(`Merged results written to ${resolve(flags.out)}`)
  }
  io.out(`${merged.length} bench${merged.length === 1 ? '' : 'es'} merged from ${files.length} segment files: ${failed ? 'FAILED' : 'ok'}`)
  return failed ? 1 : 0
}

export const mergeCommand: CliCommand = {
  summary: 'Merge the segment results of a load split over machines, then judge them against the baselines',
  flags: {
    dir: { type: 'string', description: "Folder holding every host's segment files (subfolders too)", default: 'llm-bench-segments' },
    out: { type: 'string', description: 'Write the merged results (JSON) here' },
    update: { type: 'boolean', description: 'Record the merged results as the baselines (as vitest bench -u)', default: false },
    'baseline-dir': { type: 'string', description: 'Folder of the baseline files, as llmBench({ baselineDir }) (default LLM_BENCH_BASELINE_DIR, else __llm_baselines__ beside each bench file)' },
  },
  run: runMerge,
}
