import { OptionsError } from '../contract/errors.ts'
import type { LoadOptions } from '../contract/options.ts'

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
 * `workers` checked (a whole number >= 1) against the load, or 1 when it is left out. Throws {@link OptionsError}
 * when a thread would get nothing to do: fewer concurrent requests, or fewer requests, than threads.
 */
export function resolveWorkers(workers: unknown, load: LoadOptions): number {
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
