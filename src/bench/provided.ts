import type { UpdateMode } from '../core/baseline/index.ts'
import type { RegressionPolicy, Verdict } from '../core/verdict/index.ts'
import type { SloCheck } from '../core/slo/index.ts'
import type { BenchmarkResult } from '../core/contract/result.ts'
import type { BaselineState } from './baseline-state.ts'
import type { SegmentJudge } from './segment-judge.ts'

export type { UpdateMode }

/** What the plugin hands to every bench file (serialisable, via `provide`/`inject`). */
export interface LlmBenchProvided {
  /** `all` under `-u`, `none` under CI, else `new` (write missing baselines only). */
  update: UpdateMode
  /** True when `CI` is set: a missing baseline is then a failure. */
  ci: boolean
  /** Count each judged run that did not fail, on a quiet machine, as one more session of its stored baseline. */
  addSession?: boolean
  /** Folder for baseline files; default `__llm_baselines__` beside each bench file. */
  baselineDir?: string
  /** URL of the server the plugin started (or connected to) for benches that name none. */
  serverUrl?: string
  /** Launch facts of that server, for the result's environment. */
  server?: BenchmarkResult['environment']['server']
  /** Default baseline policy of the plugin. */
  tolerance?: RegressionPolicy
  /** True when a reporter shows live progress: benches then send progress artifacts (see `forwardProgress`). */
  progress?: boolean
}

export const PROVIDED_KEY = 'vitest-llm-bench' as const

/** What a bench leaves on its task for reporters. */
export interface LlmBenchTaskMeta {
  result: BenchmarkResult
  /** The comparison with the stored baseline, when one was compared. */
  verdict?: Verdict
  /** Absolute path of the bench file's baseline file. */
  baselinePath?: string
  /** What happened to the bench's baseline entry. */
  baselineState?: BaselineState
  /** SLO limits checked, when the bench set any. */
  sloChecks?: SloCheck[]
  /** The judge's lines for the console: baseline written with its trials' spread, undecided checks. */
  notes?: string[]
  /** A segment of a load over several machines: what judging the merged result needs (`vitest --merge-reports`). */
  segmentJudge?: SegmentJudge
}

declare module 'vitest' {
  interface ProvidedContext {
    'vitest-llm-bench': LlmBenchProvided
  }
  interface TaskMeta {
    llmBench?: LlmBenchTaskMeta
    /** Set when a bench (`bench.llm` or a sweep) starts: one with it and no result failed before it measured. */
    llmBenchStarted?: boolean
  }
}
