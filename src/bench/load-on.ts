/**
 * One run of a bench's load on a server the harness acquired: a trial of `bench.llm`, a trial or slice of
 * `bench.llm.compare`, a slice of an `ab` arm. The harness keeps what it reads itself (the server, the gates, the
 * trials and pairs); the load gets the rest, and its result says what ran.
 */
import { dirname } from 'node:path'
import type { BenchmarkOptions, Progress } from '../core/contract/options.ts'
import type { BenchmarkResult } from '../core/contract/result.ts'
import { checkTarget, runConfigOf, type RunPlan } from '../core/plan/index.ts'
import { runPlan } from '../core/run.ts'
import { endedLines, type AcquiredTarget } from './bench-target.ts'
import type { BenchLlmOptions } from './bench-options.ts'
import type { BenchCompareOptions } from './compare-bench-options.ts'
import { sliceOptions } from './slice-options.ts'

/** What a bench's load reads of its options: the core run's options but its target, signal and progress. */
export type LoadOptions = Omit<BenchmarkOptions, 'target' | 'signal' | 'onProgress'>

/** The options of `bench.llm` or `bench.llm.compare` without what the harness reads itself. */
export function loadOptionsOf(options: BenchLlmOptions | BenchCompareOptions): LoadOptions {
  const {
    server: _server,
    target: _target,
    slo: _slo,
    baseline: _baseline,
    timeoutMs: _timeout,
    resetPrefixCache: _reset,
    trials: _trials,
    variants: _variants,
    control: _control,
    pairs: _pairs,
    budgetMs: _budget,
    onInconclusive: _on,
    arms: _arms,
    slices: _slices,
    ...load
  } = options as BenchLlmOptions & Partial<BenchCompareOptions>
  return load
}

/** The bench whose load runs. */
export interface LoadingBench {
  /** Absolute path of the bench file: dataset and tokenizer paths written in it are relative to it. */
  file: string
  options: BenchLlmOptions | BenchCompareOptions
  signal?: AbortSignal
}

/**
 * Runs `plan` on the acquired server. `asPlanned`: the result's config says the plan's own seed and length (a
 * slice's share of the load, a compared arm's); else the options as written (a stored baseline's identity).
 */
export async function runLoadOn(
  bench: LoadingBench,
  acquired: AcquiredTarget,
  plan: RunPlan,
  how: { asPlanned?: boolean; onProgress?: (progress: Progress) => void } = {},
): Promise<BenchmarkResult> {
  const load = loadOptionsOf(bench.options)
  return runPlan(
    {
      target: checkTarget(acquired.target),
      run: plan,
      config: runConfigOf({ ...(how.asPlanned ? sliceOptions(load, plan) : load), target: acquired.target }),
    },
    {
      ...acquired.context,
      baseDir: dirname(bench.file),
      ...(bench.signal ? { signal: bench.signal } : {}),
      ...(how.onProgress ? { onProgress: how.onProgress } : {}),
    },
  )
}

/** Throws when the acquired server ended: `say` words the first line (`${ended} during its trial; …`). */
export function failIfEnded(acquired: AcquiredTarget, say: (ended: string) => string): void {
  const ended = acquired.serverEnded()
  if (ended === undefined) return
  const [first, ...tail] = endedLines(ended)
  throw new Error([say(first), ...tail].join('\n'))
}
