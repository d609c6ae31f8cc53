import type { RunPlan } from '../plan/index.ts'

/**
 * The order in which arms kept up together are loaded within one pair: `rounds` rounds, each arm
 * once per round, every other round reversed (A B B A A B B A for two arms and four rounds), so
 * that a drift within the pair moves both arms alike (duet benchmarking, Bulej et al., ICPE 2020).
 * The pair's own order (counterbalanced across pairs) is the first round's.
 */
export function duetOrder<A>(order: readonly A[], rounds: number): A[] {
  if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`rounds must be an integer >= 1, got ${rounds}`)
  const slices: A[] = []
  for (let round = 0; round < rounds; round++) slices.push(...(round % 2 === 0 ? order : [...order].reverse()))
  return slices
}

/** Why a run cannot be cut into slices, or undefined when it can. */
export function unsliceable(run: RunPlan): string | undefined {
  const kind = run.workload.kind
  if (kind === 'sessions' || kind === 'agentic-trace' || kind === 'trace')
    return `a ${kind} workload carries state from one request to the next (a session stays in one arm)`
  if (run.load.rampUp) return 'a ramp-up shapes the whole run'
  if (run.soak) return 'a soak watches the whole run'
  if (run.segment) return 'the load is split over machines'
  if (run.stopWhen) return 'a safety stop watches the whole run'
  if (run.load.requests === undefined && run.load.durationMs === undefined) return 'the load has no length to cut'
  return undefined
}

/**
 * Slice `index` (from 0) of `count` of a run: a share of its requests (the first `requests % count`
 * slices one more) or of its duration, the same load shape (concurrency, rate, arrivals), a seed of
 * its own (so no slice repeats another's prompts on a server that caches them), and the warm-up only
 * in each arm's first slice. Call only where `unsliceable(run)` is undefined.
 */
export function sliceRunPlan(run: RunPlan, index: number, count: number): RunPlan {
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 0 || index >= count)
    throw new RangeError(`slice ${index} of ${count} does not exist`)
  const { requests, durationMs } = run.load
  const load = { ...run.load }
  if (requests !== undefined) load.requests = Math.floor(requests / count) + (index < requests % count ? 1 : 0)
  if (durationMs !== undefined) load.durationMs = durationMs / count
  return { ...run, load, seed: run.seed + index, warmup: index === 0 ? run.warmup : undefined }
}
