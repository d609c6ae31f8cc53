/**
 * The one campaign driver: a campaign is a sequence of measured steps whose next step is chosen from
 * what was measured and judged so far (GuideLLM's profiles, `next_strategy`). Counterbalanced pairs
 * of `bench.llm.compare` and `ab`, duet slices inside a pair, and sweeps are profiles of it; the
 * driver owns the loop, the clock and the stop, so no caller writes its own.
 */

/** What a campaign has measured so far, as its profile sees it. */
export interface CampaignProgress<M> {
  /** Every measured step, in order. */
  readonly measured: readonly M[]
  /** Milliseconds since the campaign started. */
  readonly elapsedMs: number
  /** Milliseconds of the longest step so far (0 before the first). */
  readonly longestStepMs: number
}

/** The next step of a campaign, or why it ends. */
export type CampaignNext<S> = { readonly step: S; readonly why: string } | { readonly stop: string }

/**
 * A campaign's strategy: from what was measured and the judgement of it (undefined before the first
 * step), the next step to measure, or why to stop. Pure: the driver measures and judges.
 */
export interface CampaignProfile<S, M, J> {
  next(progress: CampaignProgress<M>, judgement: J | undefined): CampaignNext<S>
}

/** What a campaign measured and decided. */
export interface CampaignOutcome<M, J> {
  measured: M[]
  /** The judgement of every measured step; undefined when nothing was measured. */
  judgement: J | undefined
  /** Why no further step was measured (the profile's words). */
  stopped: string
  /** Milliseconds from the first step's start to the last judgement. */
  durationMs: number
}

/** How a campaign measures and judges, and what may stop it early. */
export interface CampaignRun<S, M, J> {
  profile: CampaignProfile<S, M, J>
  /** Measures one step; `index` counts steps from 0. */
  measure(step: S, index: number): Promise<M>
  /** Judges every step measured so far (called after each step). */
  judge(measured: readonly M[]): J | Promise<J>
  /** Checked after every step: an aborted campaign throws the signal's reason. */
  signal?: AbortSignal
  /** Called with the profile's reason before each step is measured ("3 of at least 3 pairs"). */
  onStep?: (step: S, index: number, why: string) => void
}

/** Runs a campaign: asks the profile for a step, measures it, judges all steps, until the profile stops. */
export async function runCampaign<S, M, J>(run: CampaignRun<S, M, J>): Promise<CampaignOutcome<M, J>> {
  const started = performance.now()
  const measured: M[] = []
  let judgement: J | undefined
  let longestStepMs = 0
  for (;;) {
    const next = run.profile.next({ measured, elapsedMs: performance.now() - started, longestStepMs }, judgement)
    if ('stop' in next) return { measured, judgement, stopped: next.stop, durationMs: performance.now() - started }
    run.onStep?.(next.step, measured.length, next.why)
    const stepStarted = performance.now()
    measured.push(await run.measure(next.step, measured.length))
    longestStepMs = Math.max(longestStepMs, performance.now() - stepStarted)
    if (run.signal?.aborted) throw run.signal.reason
    judgement = await run.judge(measured)
  }
}
