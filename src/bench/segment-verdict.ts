import { restoreParsedPolicy } from '../core/verdict/index.ts'
import type { BenchmarkResult } from '../core/contract/result.ts'
import { mergeSegments } from '../core/trials/index.ts'
import { judgeBench, type BenchJudgement } from './bench-judgement.ts'
import type { LlmBenchProvided } from './provided.ts'
import type { SegmentJudge } from './segment-judge.ts'

/** One segment's result of one bench, wherever it was read from (a segment file, a blob report). */
export interface BenchSegment extends SegmentJudge {
  /** Absolute path of the bench file (where its baseline lives). */
  file: string
  /** The bench's full name: its baseline entry. */
  name: string
  result: BenchmarkResult
}

/** The merged result of one bench and what was concluded from it. */
export interface MergedBenchVerdict {
  file: string
  name: string
  /** Segment results merged. */
  segments: number
  result: BenchmarkResult
  /** Why no verdict was drawn (see `mergeSegments`); empty when one was. */
  refusals: string[]
  /** The verdict on the merged result; undefined when refused. */
  judgement: BenchJudgement | undefined
  /** True when refused, or the verdict failed. */
  failed: boolean
}

/**
 * Merges the segments of each bench (grouped by file and name) and judges each merged result as
 * `vitest bench` judges a bench: SLOs, then the baseline (compared, or recorded as `provided.update`
 * says). A merge that refuses is not judged and counts as failed: a verdict on a load that was not
 * the planned one would be a wrong answer.
 */
export async function judgeMergedSegments(
  segments: readonly BenchSegment[],
  provided: Pick<LlmBenchProvided, 'update' | 'ci' | 'baselineDir'>,
): Promise<MergedBenchVerdict[]> {
  const groups = new Map<string, BenchSegment[]>()
  for (const segment of segments) {
    const key = `${segment.file}\u0000${segment.name}`
    groups.set(key, [...(groups.get(key) ?? []), segment])
  }
  const verdicts: MergedBenchVerdict[] = []
  for (const group of groups.values()) {
    const first = group[0] as BenchSegment
    const { result, refusals } = mergeSegments(group.map((s) => s.result))
    const base = { file: first.file, name: first.name, segments: group.length, result, refusals }
    if (refusals.length > 0) {
      verdicts.push({ ...base, judgement: undefined, failed: true })
      continue
    }
    const policy = first.policy === false ? false : restoreParsedPolicy(first.policy, first.file)
    const judgement = await judgeBench({ name: first.name, file: first.file, result, slo: first.slo, policy, provided })
    verdicts.push({ ...base, judgement, failed: judgement.failure !== undefined })
  }
  return verdicts
}
