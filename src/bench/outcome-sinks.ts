/**
 * Where a bench's merged result goes once measured: judged here against its SLOs and stored baseline, written as
 * one host's segment of a load split over machines (judged after `merge`), or written as one arm of an `ab` pair
 * (judged by `ab`). The sink follows from the plan; the runner measures and hands the result over, with no branch
 * of its own per outcome.
 */
import type { BenchmarkResult } from '../core/contract/result.ts'
import { judgeBench, stopFailure, type BenchJudgement } from './bench-judgement.ts'
import type { ServerEnded } from './bench-target.ts'
import type { LlmBenchProvided } from './provided.ts'
import { writeSegmentFile } from './segment-file.ts'
import { writeArmFile } from './arm-file.ts'
import { DEFERRED } from './baseline-state.ts'
import type { BenchPlan } from './plan-bench.ts'

/** The bench whose result a sink takes: its key, its file and what the runner was given. */
export interface SunkBench {
  /** The baseline key (the full name under Vitest). */
  name: string
  /** Absolute path of the bench file. */
  file: string
  provided: Pick<LlmBenchProvided, 'update' | 'ci' | 'baselineDir' | 'addSession'>
}

/** What a sink is handed: the merged result, and how the server ended (undefined while it runs). */
export interface Measured {
  result: BenchmarkResult
  serverEnded: ServerEnded | undefined
}

/** Where a bench's result goes. */
export interface OutcomeSink {
  /** Whether the bench is judged against its stored baselines here (they are read before the load is sent). */
  readonly readsBaselines: boolean
  /** Judges or writes the result; a judgement that throws is the sink's caller's to report with the numbers. */
  take(bench: SunkBench, measured: Measured): Promise<BenchJudgement>
}

/** The sink of a planned bench: a segment's file, an `ab` arm's file, else the judge. */
export function outcomeSinkOf(plan: BenchPlan): OutcomeSink {
  const { policy, slo, trials } = plan
  const segment = plan.run.segment
  if (segment) {
    return {
      readsBaselines: false,
      async take(bench, { result }) {
        const path = await writeSegmentFile(bench.file, bench.name, policy, slo, result)
        return {
          failure: undefined,
          sloChecks: [],
          notes: [
            `segment ${segment.index} of ${segment.count}: judged after the merge (npx vitest-llm-bench merge --dir ` +
              `<the hosts' segment folders>); written to ${path}`,
          ],
          baselineState: DEFERRED,
          deferred: { policy, slo },
        }
      },
    }
  }
  const { arm } = plan
  if (arm) {
    return {
      readsBaselines: false,
      async take(bench, { result }) {
        const path = await writeArmFile(arm, bench.file, bench.name, policy, slo, result)
        return {
          // A server in trouble stops `ab` too (the arm fails, and ab with it), unless the stop was expected.
          failure: result.stopped && !result.stopped.expected ? stopFailure(result.stopped) : undefined,
          sloChecks: [],
          notes: [`${arm.label} arm of pair ${arm.pair}: judged by \`vitest-llm-bench ab\`; written to ${path}`],
          baselineState: DEFERRED,
        }
      },
    }
  }
  return {
    readsBaselines: policy !== false,
    take: (bench, { result, serverEnded }) =>
      judgeBench({
        name: bench.name,
        file: bench.file,
        result,
        ...(serverEnded ? { serverEnded } : {}),
        slo,
        policy,
        provided: bench.provided,
        trials,
      }),
  }
}
