import type { CompareTableInput } from '../src/bench/compare-table.ts'
import type { Verdict } from '../src/core/verdict/index.ts'
import type { SloCheck } from '../src/core/slo/index.ts'
import type { BenchmarkResult } from '../src/core/contract/result.ts'
import { isBenchmarkResult } from '../src/core/contract/result-guard.ts'
import { DEFERRED, NOT_JUDGED, PROVISIONAL, type BaselineState } from '../src/bench/baseline-state.ts'
import type { LlmBenchTaskMeta } from '../src/bench/provided.ts'
import type { LlmBenchSweepTaskMeta } from '../src/bench/sweep-meta.ts'

/** Outcome of the Vitest test that ran a bench. */
export type BenchTestState = 'passed' | 'failed' | 'skipped' | 'pending'

/** One bench as every reporter sees it: its result and what was concluded from it. */
export interface ReportEntry {
  /** Bench name with its describe path (`chat > steady load`), the key of its baseline entry. */
  name: string
  /** Bench file, relative to the project root when known. */
  file: string
  /** State of the Vitest test (a bench that failed its SLOs or baseline is `failed`). */
  state: BenchTestState
  result: BenchmarkResult
  /** Comparison with the stored baseline, when one was compared. */
  verdict?: Verdict
  /** SLO limits checked, when the bench set any. */
  sloChecks?: SloCheck[]
  /** Absolute path of the bench file's baseline file. */
  baselinePath?: string
  /** What happened to the bench's baseline entry (see `BaselineState`). */
  baselineState?: BaselineState
  /** First lines of the assertion error when the test failed. */
  failure?: string
  /** The judge's lines: a baseline written with its trials' spread and the tolerances it supports. */
  notes?: string[]
  /** Set when this entry is one point of a sweep (`bench.llm.sweep`), which judges the whole curve. */
  sweep?: SweepPoint
}

/** Which sweep an entry is a point of, and where on its axis. */
export interface SweepPoint {
  /** The sweep's name with its describe path. */
  name: string
  /** What the sweep varies: `concurrency` or `rate`. */
  axis: string
  /** The point's value on that axis (streams, or requests per second). */
  value: number
}

/**
 * Overall verdict of an entry: the test state first, then the baseline verdict, then the SLOs.
 * `measured`: a sweep point, which nothing judges on its own (the sweep's checks judge the curve), or a
 * segment or arm whose verdict is made after the merge or by `ab`.
 */
export type EntryStatus = 'pass' | 'fail' | 'inconclusive' | 'skipped' | 'measured'

export function entryStatus(entry: ReportEntry): EntryStatus {
  if (entry.state === 'skipped' || entry.state === 'pending') return 'skipped'
  if (entry.sweep) return 'measured'
  // A segment or an arm: measured here, judged with the others (a failed test still fails above).
  if (entry.baselineState === DEFERRED && entry.state !== 'failed') return 'measured'
  if (entry.state === 'failed') return 'fail'
  if (entry.verdict?.status === 'fail' || entry.sloChecks?.some((check) => check.status === 'fail')) return 'fail'
  if (entry.verdict?.status === 'inconclusive' || entry.sloChecks?.some((check) => check.status === 'inconclusive'))
    return 'inconclusive'
  // A soak is judged by its trends, not a baseline: an undecided trend is not a pass.
  if (entry.result.soak?.verdict === 'inconclusive') return 'inconclusive'
  // Neither compared nor written (a disturbed machine lost too many requests): not a pass.
  if (entry.baselineState === NOT_JUDGED) return 'inconclusive'
  // Recorded provisionally on a disturbed machine: nothing was judged, and the entry is not trusted yet.
  if (entry.baselineState === PROVISIONAL) return 'inconclusive'
  return 'pass'
}

/** What a reporter reads from a test case: its name, file, state, meta and errors (a subset of Vitest's `TestCase`). */
export interface TestCaseLike {
  fullName: string
  module: { moduleId: string; relativeModuleId?: string }
  meta(): {
    llmBench?: LlmBenchTaskMeta
    llmBenchSweep?: LlmBenchSweepTaskMeta
    /** A `bench.llm.compare`'s result (`CompareResult`), read for its table. */
    llmBenchCompare?: CompareTableInput
    llmBenchStarted?: boolean
  }
  result(): { state: string; errors?: ReadonlyArray<{ message?: string }> | undefined }
}

const MAX_FAILURE_LINES = 12

function failureOf(outcome: ReturnType<TestCaseLike['result']>): string | undefined {
  const message = outcome.errors?.[0]?.message
  return outcome.state === 'failed' && message ? message.split('\n').slice(0, MAX_FAILURE_LINES).join('\n') : undefined
}

/** A bench that started and ended without a result (its server did not start, its baseline file was broken...). */
export interface UnmeasuredBench {
  /** Bench name with its describe path. */
  name: string
  /** Bench file, relative to the project root when known. */
  file: string
  /** First lines of its error. */
  failure: string
}

/** The bench of `testCase` when it started and left no result (a sweep's result counts); undefined otherwise. */
export function unmeasuredBenchOf(testCase: TestCaseLike): UnmeasuredBench | undefined {
  const meta = testCase.meta()
  if (meta.llmBenchStarted !== true) return undefined
  if (meta.llmBench !== undefined || meta.llmBenchSweep !== undefined || meta.llmBenchCompare !== undefined)
    return undefined
  const outcome = testCase.result()
  return {
    name: testCase.fullName,
    file: testCase.module.relativeModuleId ?? testCase.module.moduleId,
    failure: failureOf(outcome) ?? `ended ${outcome.state} without a result`,
  }
}

/** The entry of a Vitest test case that ran `bench.llm`; undefined for any other test. */
export function reportEntryOf(testCase: TestCaseLike): ReportEntry | undefined {
  const meta = testCase.meta().llmBench
  // The one shape check: a result written by another version of the package (a merged blob report) may not be readable.
  if (meta === undefined || !isBenchmarkResult(meta.result)) return undefined
  const outcome = testCase.result()
  const state: BenchTestState =
    outcome.state === 'passed' || outcome.state === 'failed' || outcome.state === 'skipped' ? outcome.state : 'pending'
  const entry: ReportEntry = {
    name: testCase.fullName,
    file: testCase.module.relativeModuleId ?? testCase.module.moduleId,
    state,
    result: meta.result,
  }
  if (meta.verdict) entry.verdict = meta.verdict
  if (meta.sloChecks) entry.sloChecks = meta.sloChecks
  if (meta.baselinePath !== undefined) entry.baselinePath = meta.baselinePath
  if (meta.baselineState !== undefined) entry.baselineState = meta.baselineState
  if (meta.notes) entry.notes = meta.notes
  const failure = failureOf(outcome)
  if (failure) entry.failure = failure
  return entry
}
