import { relative } from 'node:path'
import type { Reporter, TestCase, Vitest } from 'vitest/node'
import { renderMergedVerdict } from '../../reporters/merged-verdict.ts'
import { NOT_JUDGED } from '../bench/baseline-state.ts'
import { isCI } from '../bench/ci.ts'
import type { LlmBenchTaskMeta, UpdateMode } from '../bench/provided.ts'
import { judgeMergedSegments, type BenchSegment, type MergedBenchVerdict } from '../bench/segment-verdict.ts'

/** One host's copy of a segmented bench's test, with the segment it measured. */
interface SegmentCase {
  segment: BenchSegment
  testCase: TestCase
}

/**
 * The task meta of a bench merged from its segments, as a bench measured in one process has it:
 * the merged result, its verdict, SLO checks, baseline state and the judge's lines. A merge that
 * refused has no verdict: `not judged`, with why; a failed judgement's first paragraph is a note.
 */
export function mergedTaskMeta(verdict: MergedBenchVerdict): LlmBenchTaskMeta {
  const { judgement } = verdict
  const refusals = verdict.refusals.map((why) => `no verdict: ${why}`)
  if (!judgement) return { result: verdict.result, baselineState: NOT_JUDGED, notes: refusals }
  const failure = judgement.failure?.split('\n\n')[0]
  const notes = [...refusals, ...judgement.notes, ...(failure ? [failure] : [])]
  return {
    result: verdict.result,
    ...(judgement.sloChecks.length > 0 ? { sloChecks: judgement.sloChecks } : {}),
    ...(judgement.verdict ? { verdict: judgement.verdict } : {}),
    ...(judgement.baselinePath ? { baselinePath: judgement.baselinePath } : {}),
    ...(judgement.baselineState ? { baselineState: judgement.baselineState } : {}),
    ...(notes.length > 0 ? { notes } : {}),
  }
}

/**
 * Registered by the plugin: when the finished tests hold segments of a load over several machines
 * (each host ran `vitest bench` with `LLM_BENCH_SEGMENT` and the blob reporter, and
 * `vitest --merge-reports` replays them here), merges the segments of each bench and judges the
 * merged result against its baseline, as `vitest-llm-bench merge` does; a refusal or a failed
 * verdict fails the run (exit code 1). Does nothing in a run without segments.
 *
 * The file reporters (JSON, Markdown, HTML, CSV) read each bench from its test's meta when the run
 * ends, all reporters at once: so the merge is judged as soon as the last blob's module has been
 * replayed, before the run ends, and every host's copy of the test then carries the merged,
 * judged bench instead of its own segment (Vitest lists one of those copies, once per blob).
 */
export class SegmentMergeReporter implements Reporter {
  readonly #vitest: Vitest
  readonly #baselineDir: () => string | undefined
  readonly #segments: SegmentCase[] = []
  #modulesEnded = 0
  #judged: Promise<MergedBenchVerdict[]> | undefined

  constructor(vitest: Vitest, baselineDir: () => string | undefined) {
    this.#vitest = vitest
    this.#baselineDir = baselineDir
  }

  onTestRunStart(): void {
    this.#segments.length = 0
    this.#modulesEnded = 0
    this.#judged = undefined
  }

  onTestCaseResult(testCase: TestCase): void {
    // A merged blob report holds each host's copy of the same test: every one arrives here, once.
    const meta = testCase.meta() as { llmBench?: LlmBenchTaskMeta }
    const bench = meta.llmBench
    if (!bench?.result.segment || !bench.segmentJudge) return
    const segment = {
      file: testCase.module.moduleId,
      name: testCase.fullName,
      result: bench.result,
      ...bench.segmentJudge,
    }
    this.#segments.push({ segment, testCase })
  }

  async onTestModuleEnd(): Promise<void> {
    const blobs = this.#vitest.state.blobs
    if (!blobs) return
    this.#modulesEnded += 1
    // The last module of the blobs replayed: judged now, while no reporter has read the run's end yet.
    if (this.#modulesEnded === blobs.files.length) await this.#judge()
  }

  async onTestRunEnd(): Promise<void> {
    // One host's own run has only its segment: the merge judges, later.
    if (this.#segments.length === 0 || !this.#vitest.state.blobs) return
    const verdicts = await this.#judge()
    const root = this.#vitest.config.root
    for (const verdict of verdicts)
      this.#vitest.logger.log(`\n${renderMergedVerdict(verdict, relative(root, verdict.file))}\n`)
    if (verdicts.some((v) => v.failed)) process.exitCode = 1
  }

  /** Merges and judges the segments once (a baseline is written at most once), and hands each test its bench. */
  #judge(): Promise<MergedBenchVerdict[]> {
    this.#judged ??= this.#mergeAndJudge()
    return this.#judged
  }

  async #mergeAndJudge(): Promise<MergedBenchVerdict[]> {
    if (this.#segments.length === 0) return []
    const update = this.#vitest.config.snapshotOptions.updateSnapshot as UpdateMode
    const baselineDir = this.#baselineDir()
    const verdicts = await judgeMergedSegments(
      this.#segments.map((each) => each.segment),
      { update, ci: isCI(), ...(baselineDir ? { baselineDir } : {}) },
    )
    for (const verdict of verdicts) {
      const meta = mergedTaskMeta(verdict)
      for (const { segment, testCase } of this.#segments)
        if (segment.file === verdict.file && segment.name === verdict.name)
          (testCase.meta() as { llmBench?: LlmBenchTaskMeta }).llmBench = meta
    }
    return verdicts
  }
}
