import { relative } from 'node:path'
import type { Reporter, TestCase, Vitest } from 'vitest/node'
import { renderMergedVerdict } from '../../reporters/merged-verdict.ts'
import { isCI } from '../bench/ci.ts'
import type { LlmBenchTaskMeta, UpdateMode } from '../bench/provided.ts'
import { judgeMergedSegments, type BenchSegment } from '../bench/segment-verdict.ts'

/**
 * Registered by the plugin: when the finished tests hold segments of a load over several machines
 * (each host ran `vitest bench` with `LLM_BENCH_SEGMENT` and the blob reporter, and
 * `vitest --merge-reports` replays them here), merges the segments of each bench and judges the
 * merged result against its baseline, as `vitest-llm-bench merge` does; a refusal or a failed
 * verdict fails the run (exit code 1). Does nothing in a run without segments.
 */
export class SegmentMergeReporter implements Reporter {
  readonly #vitest: Vitest
  readonly #baselineDir: () => string | undefined
  readonly #segments: BenchSegment[] = []

  constructor(vitest: Vitest, baselineDir: () => string | undefined) {
    this.#vitest = vitest
    this.#baselineDir = baselineDir
  }

  onTestRunStart(): void {
    this.#segments.length = 0
  }

  onTestCaseResult(testCase: TestCase): void {
    // A merged blob report holds each host's copy of the same test: every one arrives here, once.
    const meta = testCase.meta() as { llmBench?: LlmBenchTaskMeta }
    const bench = meta.llmBench
    if (!bench?.result.segment || !bench.segmentJudge) return
    this.#segments.push({
      file: testCase.module.moduleId,
      name: testCase.fullName,
      result: bench.result,
      ...bench.segmentJudge,
    })
  }

  async onTestRunEnd(): Promise<void> {
    // One host's own run has only its segment: the merge judges, later.
    if (this.#segments.length === 0 || !this.#vitest.state.blobs) return
    const update = this.#vitest.config.snapshotOptions.updateSnapshot as UpdateMode
    const baselineDir = this.#baselineDir()
    const verdicts = await judgeMergedSegments(this.#segments, {
      update,
      ci: isCI(),
      ...(baselineDir ? { baselineDir } : {}),
    })
    const root = this.#vitest.config.root
    for (const verdict of verdicts)
      this.#vitest.logger.log(`\n${renderMergedVerdict(verdict, relative(root, verdict.file))}\n`)
    if (verdicts.some((v) => v.failed)) process.exitCode = 1
  }
}
