import type { SweepCheck, SweepResult } from '../core/sweep/index.ts'

/** What `bench.llm.sweep` leaves on its task for reporters (`task.meta.llmBenchSweep`). JSON-serialisable. */
export interface LlmBenchSweepTaskMeta {
  /** The sweep, capacity search or scenario, each point's full result without per-request records. */
  result: SweepResult
  /** Every assertion made on it, passing ones included. */
  checks: SweepCheck[]
  /** Baseline file, when baselines are on. */
  baselinePath?: string
  /**
   * `compare`, `written`, `updated`, `missing`, `mismatch`, `provisional` (written on a disturbed machine), or
   * `not judged` (points lost requests on a disturbed machine: neither compared nor written).
   */
  baselineState?: string
}

declare module 'vitest' {
  interface TaskMeta {
    llmBenchSweep?: LlmBenchSweepTaskMeta
  }
}
