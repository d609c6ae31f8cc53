import { writeFile } from 'node:fs/promises'
import { relative, resolve } from 'node:path'
import { renderMergedVerdict } from '../../reporters/merged-verdict.ts'
import { isCI } from '../bench/ci.ts'
import { readSegmentFiles } from '../bench/segment-file.ts'
import { judgeMergedSegments } from '../bench/segment-verdict.ts'
import type { CliCommand, CliFlagValues, CliIo } from './cli-command.ts'

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
    io.err(
      `No segment file in ${dir}. A bench run with LLM_BENCH_SEGMENT=i/N writes one per bench into LLM_BENCH_SEGMENT_DIR (default llm-bench-segments/); collect every host's folder here.`,
    )
    return 1
  }
  const baselineDir =
    typeof flags['baseline-dir'] === 'string' ? resolve(flags['baseline-dir']) : process.env.LLM_BENCH_BASELINE_DIR
  const provided = {
    update: flags.update === true ? ('all' as const) : isCI() ? ('none' as const) : ('new' as const),
    ci: isCI(),
    ...(baselineDir ? { baselineDir } : {}),
  }
  const segments = files.map(({ segment }) => ({
    file: resolve(segment.file),
    name: segment.name,
    result: segment.result,
    policy: segment.policy,
    slo: segment.slo,
  }))
  const verdicts = await judgeMergedSegments(segments, provided)
  for (const verdict of verdicts) io.out(`${renderMergedVerdict(verdict, relative(process.cwd(), verdict.file))}\n`)
  if (typeof flags.out === 'string') {
    const merged = verdicts.map(({ file, name, segments: count, refusals, judgement, result }) => ({
      file: relative(process.cwd(), file),
      name,
      segments: count,
      refusals,
      verdict:
        judgement?.verdict?.status ?? judgement?.baselineState ?? (refusals.length > 0 ? 'refused' : 'no baseline'),
      result,
    }))
    await writeFile(resolve(flags.out), `${JSON.stringify({ tool: 'vitest-llm-bench', merged }, null, 2)}\n`)
    io.out(`Merged results written to ${resolve(flags.out)}`)
  }
  const failed = verdicts.some((v) => v.failed)
  io.out(
    `${verdicts.length} bench${verdicts.length === 1 ? '' : 'es'} merged from ${files.length} segment files: ${failed ? 'FAILED' : 'ok'}`,
  )
  return failed ? 1 : 0
}

export const mergeCommand: CliCommand = {
  summary: 'Merge the segment results of a load split over machines, then judge them against the baselines',
  exits: '0 no merged bench failed; 1 one failed, or no segment file was found; 2 a usage error',
  flags: {
    dir: {
      type: 'string',
      description: "Folder holding every host's segment files (subfolders too)",
      default: 'llm-bench-segments',
    },
    out: { type: 'string', description: 'Write the merged results (JSON) here' },
    update: {
      type: 'boolean',
      description: 'Record the merged results as the baselines (as vitest bench -u)',
      default: false,
    },
    'baseline-dir': {
      type: 'string',
      description:
        'Folder of the baseline files, as llmBench({ baselineDir }) (default LLM_BENCH_BASELINE_DIR, else __llm_baselines__ beside each bench file)',
    },
  },
  run: runMerge,
}
