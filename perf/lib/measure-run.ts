import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import type { EventLoopUtilization } from 'node:perf_hooks'
import { runBenchmark } from '../../src/core/run.ts'
import type { BenchmarkOptions, BenchmarkResult } from '../../src/core/contract/types.ts'

/** One benchmark run seen from the client process: rate, CPU and busyness over its steady part. */
export interface MeasuredRun {
  result: BenchmarkResult
  /** Content-bearing events received between the first and the last completion. */
  events: number
  /** Those events per second of the same window. */
  eventsPerSec: number
  /** Client CPU (user + system, every thread of the process) per event over that window, µs. */
  cpuUsPerEvent: number
  /** Share of that CPU time spent in the kernel (socket reads and writes). */
  systemCpuShare: number
  /** Share of that window the main event loop was busy (1 = the client was the bottleneck). */
  eventLoopUtilization: number
  /** 1-minute load average of the machine when the run ended. */
  loadAverage: number
}

/**
 * Runs `options` and measures from the first completed request to the last one, so the fixed
 * costs of a run (readiness probes, environment collection, warm-up, connection set-up) do not
 * count. Output tokens stand for events: the servers here send one token per event.
 */
export async function measureRun(options: BenchmarkOptions): Promise<MeasuredRun> {
  let first: { tokens: number; elapsedMs: number; cpu: NodeJS.CpuUsage; elu: EventLoopUtilization } | undefined
  let last: { tokens: number; elapsedMs: number; cpu: NodeJS.CpuUsage; elu: EventLoopUtilization } | undefined
  const result = await runBenchmark(
    {
      ...options,
      onProgress: (progress) => {
        // process.cpuUsage is a system call: sample the first completion, then every 100 ms and the last.
        const due =
          first === undefined || progress.done === progress.total || progress.elapsedMs - (last?.elapsedMs ?? 0) >= 100
        if (due) {
          const sample = {
            tokens: progress.outputTokens,
            elapsedMs: progress.elapsedMs,
            cpu: process.cpuUsage(),
            elu: performance.eventLoopUtilization(),
          }
          first ??= sample
          last = sample
        }
        options.onProgress?.(progress)
      },
    },
    { skipGpu: true },
  )
  if (first === undefined || last === undefined || last.tokens === first.tokens)
    throw new Error('the run completed fewer than two requests: nothing to measure')
  const events = last.tokens - first.tokens
  const seconds = (last.elapsedMs - first.elapsedMs) / 1000
  const cpuUs = last.cpu.user - first.cpu.user + (last.cpu.system - first.cpu.system)
  return {
    result,
    events,
    eventsPerSec: events / seconds,
    cpuUsPerEvent: cpuUs / events,
    systemCpuShare: (last.cpu.system - first.cpu.system) / cpuUs,
    eventLoopUtilization: performance.eventLoopUtilization(last.elu, first.elu).utilization,
    loadAverage: loadavg()[0] ?? NaN,
  }
}
