import { OptionsError } from '../contract/errors.ts'
import { deriveSeed } from '../platform/random.ts'
import type { LoadOptions, WarmupOptions } from '../contract/types.ts'

/** Label of the seed stream of thread `n`'s arrivals (see {@link deriveSeed}). */
const THREAD_SEED_LABEL = 0x7772_6b72

/** What one of several threads runs. */
export interface LoadShare {
  /** 0-based thread number. */
  thread: number
  threads: number
  load: LoadOptions
  warmup: WarmupOptions | undefined
  /** Seed of this thread's arrival schedule: independent streams, so Poisson shares add up to a Poisson whole. */
  seed: number
  /** Delay of this thread's start after the common start, ms: spreads constant-rate shares evenly. */
  startDelayMs: number
}

/** Part `thread` of `total` split into `threads` nearly equal whole parts (the first ones get the remainder). */
export function shareOfCount(total: number, thread: number, threads: number): number {
  return Math.floor(total / threads) + (thread < total % threads ? 1 : 0)
}

/** The workload index of request `local` of thread `thread`: threads interleave, so indices 0..n-1 are each sent once. */
export function globalIndexOf(local: number, thread: number, threads: number): number {
  return local * threads + thread
}

/** Entries `thread`, `thread + threads`, ... of a trace's offsets: the requests of that thread. */
export function shareOfTimestamps(timestampsMs: number[], thread: number, threads: number): number[] {
  const share: number[] = []
  for (let i = thread; i < timestampsMs.length; i += threads) share.push(timestampsMs[i] as number)
  return share
}

/**
 * Validates `workers` (a whole number >= 1) against the load. Throws {@link OptionsError} when a
 * thread would get nothing to do: fewer concurrent requests, or fewer requests, than threads.
 */
export function validateWorkers(workers: unknown, load: LoadOptions): number {
  if (workers === undefined) return 1
  if (typeof workers !== 'number' || !Number.isInteger(workers) || workers < 1) {
    throw new OptionsError(
      'workers',
      `must be a whole number >= 1, got ${String(workers)}`,
      'Use 1 (the default) or the number of CPU cores to drive the load from.',
    )
  }
  if (workers === 1) return 1
  if (load.concurrency !== undefined && load.concurrency < workers) {
    throw new OptionsError(
      'workers',
      `${workers} threads cannot share load.concurrency = ${load.concurrency}`,
      `Use at most ${load.concurrency} workers, or raise the concurrency.`,
    )
  }
  if (load.requests !== undefined && load.requests < workers) {
    throw new OptionsError(
      'workers',
      `${workers} threads cannot share load.requests = ${load.requests}`,
      `Use at most ${load.requests} workers, or send more requests.`,
    )
  }
  return workers
}

/**
 * Splits a load across `threads` threads so that together they apply the load one thread would:
 * concurrency, request counts and warm-up requests are divided into whole shares, rates and
 * ramp starts into equal parts, durations are kept. Each share's arrivals use their own seed
 * (a sum of independent Poisson processes is the Poisson process of the summed rate); constant
 * arrivals are staggered by one planned gap of the whole so that they interleave evenly. Gamma
 * arrivals with a burstiness other than 1 stay gamma per thread, not in sum.
 */
export function splitLoad(
  load: LoadOptions,
  warmup: WarmupOptions | undefined,
  seed: number,
  threads: number,
): LoadShare[] {
  const shares: LoadShare[] = []
  for (let thread = 0; thread < threads; thread++) {
    const share: LoadOptions = { ...load }
    if (load.concurrency !== undefined) share.concurrency = shareOfCount(load.concurrency, thread, threads)
    if (load.requests !== undefined) share.requests = shareOfCount(load.requests, thread, threads)
    if (load.rate !== undefined) share.rate = load.rate / threads
    if (load.rampUp !== undefined) share.rampUp = { ...load.rampUp, from: load.rampUp.from / threads }
    let warmupShare: WarmupOptions | undefined
    if (warmup !== undefined) {
      warmupShare = { ...warmup }
      if (warmup.requests !== undefined) warmupShare.requests = shareOfCount(warmup.requests, thread, threads)
    }
    const constant = load.rate !== undefined && Number.isFinite(load.rate) && load.arrival === 'constant'
    shares.push({
      thread,
      threads,
      load: share,
      warmup: warmupShare,
      seed: deriveSeed(seed, THREAD_SEED_LABEL, thread),
      startDelayMs: constant ? (thread * 1000) / (load.rate as number) : 0,
    })
  }
  return shares
}
