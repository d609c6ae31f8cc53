import type { Histogram } from 'hdr-histogram-js'
import type { RequestRecord, SoakWindow, SoakWindowLatency } from '../contract/types.ts'
import { createHistogram, LATENCY_HIGHEST_TRACKABLE_US, LATENCY_UNITS_PER_MS } from '../metrics/histogram.ts'
import { endToEndMs, timePerOutputTokenMs, timeToFirstTokenMs } from '../metrics/request-latency.ts'

/** What other work did on the machine over one window (from `startHostLoad`), as a soak window keeps it. */
export interface WindowHostLoad {
  otherCores?: number
  stealShare?: number
}

/** One window while the soak runs: latencies in histograms, so memory is bounded by the windows, not the requests. */
interface OpenWindow {
  completed: number
  failed: number
  outputTokens: number
  ttft: Histogram
  tpot: Histogram
  e2e: Histogram
  late: Histogram
  host?: WindowHostLoad
}

function openWindow(): OpenWindow {
  const latency = () => createHistogram(LATENCY_HIGHEST_TRACKABLE_US)
  return { completed: 0, failed: 0, outputTokens: 0, ttft: latency(), tpot: latency(), e2e: latency(), late: latency() }
}

function recordMs(histogram: Histogram, ms: number | undefined): void {
  if (ms !== undefined && Number.isFinite(ms)) histogram.recordValue(Math.max(1, Math.round(ms * LATENCY_UNITS_PER_MS)))
}

function percentiles(histogram: Histogram): SoakWindowLatency | null {
  if (histogram.totalCount === 0) return null
  return {
    p50: histogram.getValueAtPercentile(50) / LATENCY_UNITS_PER_MS,
    p99: histogram.getValueAtPercentile(99) / LATENCY_UNITS_PER_MS,
  }
}

/**
 * The windows of a soak as its requests finish: a request belongs to the window it ended in, as
 * output tokens per second count where they were produced. Requests that end after the last whole
 * window (the drain) are measured in the run's totals but in no window: the drain's falling
 * concurrency would otherwise read as a trend.
 */
export class SoakWindows {
  readonly #windowMs: number
  readonly #windows: OpenWindow[]
  #origin: number | undefined

  /** @param windowCount Whole windows in the soak's duration. */
  constructor(windowMs: number, windowCount: number) {
    this.#windowMs = windowMs
    this.#windows = Array.from({ length: windowCount }, openWindow)
  }

  /** The first measured dispatch, `performance.now()` ms: windows count from it. */
  start(origin: number): void {
    this.#origin ??= origin
  }

  get origin(): number | undefined {
    return this.#origin
  }

  /** A measured request finished (ok or not). */
  add(record: RequestRecord): void {
    if (this.#origin === undefined) return
    const window = this.#windows[Math.floor((record.endAt - this.#origin) / this.#windowMs)]
    if (window === undefined) return
    if (!record.ok) {
      window.failed++
      return
    }
    window.completed++
    window.outputTokens += record.outputTokens
    recordMs(window.ttft, timeToFirstTokenMs(record))
    recordMs(window.tpot, timePerOutputTokenMs(record))
    recordMs(window.e2e, endToEndMs(record))
    recordMs(window.late, record.clientLateMs)
  }

  /** What other work did over window `index` (taken when the window closed). */
  setHostLoad(index: number, host: WindowHostLoad): void {
    const window = this.#windows[index]
    if (window) window.host = host
  }

  /** The figures of window `index` so far (complete once it closed); undefined past the last. */
  windowAt(index: number): SoakWindow | undefined {
    const w = this.#windows[index]
    return w && this.#figures(w, index)
  }

  /** The windows' figures; GPU and server gauges are added from their own series ({@link soakWindowsWithGauges}). */
  finish(): SoakWindow[] {
    return this.#windows.map((w, index) => this.#figures(w, index))
  }

  #figures(w: OpenWindow, index: number): SoakWindow {
    {
      const late = percentiles(w.late)
      const window: SoakWindow = {
        startMs: index * this.#windowMs,
        endMs: (index + 1) * this.#windowMs,
        completed: w.completed,
        failed: w.failed,
        outputTokensPerSec: w.outputTokens / (this.#windowMs / 1000),
        ttftMs: percentiles(w.ttft),
        tpotMs: percentiles(w.tpot),
        e2eMs: percentiles(w.e2e),
        ...(late ? { clientLateMsP99: late.p99 } : {}),
        ...(w.host?.otherCores !== undefined ? { otherCores: w.host.otherCores } : {}),
        ...(w.host?.stealShare !== undefined ? { stealShare: w.host.stealShare } : {}),
      }
      return window
    }
  }
}

/** A gauge's samples: time from the soak's start, ms, and the value. */
export interface GaugeSamples {
  t: readonly number[]
  values: ReadonlyArray<number | null | undefined>
}

/** The largest and the mean of the samples inside [startMs, endMs); undefined when none is. */
function windowOf(samples: GaugeSamples, startMs: number, endMs: number): { max: number; mean: number } | undefined {
  let max = Number.NEGATIVE_INFINITY
  let sum = 0
  let count = 0
  samples.t.forEach((t, i) => {
    const value = samples.values[i]
    if (t < startMs || t >= endMs || value === null || value === undefined || !Number.isFinite(value)) return
    max = Math.max(max, value)
    sum += value
    count++
  })
  return count === 0 ? undefined : { max, mean: sum / count }
}

/** The sum over GPUs of each GPU's largest (memory) or mean (power) in the window; undefined when no GPU had a sample. */
function sumOverGpus(
  perGpu: readonly GaugeSamples[] | undefined,
  startMs: number,
  endMs: number,
  take: 'max' | 'mean',
): number | undefined {
  let total: number | undefined
  for (const samples of perGpu ?? []) {
    const window = windowOf(samples, startMs, endMs)
    if (window) total = (total ?? 0) + window[take]
  }
  return total
}

/** Gauges sampled beside a soak's requests: GPU memory and power per GPU, and the server's gauges. */
export interface SoakGauges {
  gpuMemoryMiB?: readonly GaugeSamples[]
  gpuPowerW?: readonly GaugeSamples[]
  kvCacheUsage?: GaugeSamples
  requestsWaiting?: GaugeSamples
}

/**
 * Adds the gauges to each window: GPU memory (each GPU's largest, summed) and power (each GPU's
 * mean, summed), and the server's KV-cache usage and queue (largest).
 */
export function soakWindowsWithGauges(windows: readonly SoakWindow[], gauges: SoakGauges): SoakWindow[] {
  return windows.map((window) => {
    const { startMs, endMs } = window
    const memory = sumOverGpus(gauges.gpuMemoryMiB, startMs, endMs, 'max')
    const power = sumOverGpus(gauges.gpuPowerW, startMs, endMs, 'mean')
    const kv = gauges.kvCacheUsage && windowOf(gauges.kvCacheUsage, startMs, endMs)
    const waiting = gauges.requestsWaiting && windowOf(gauges.requestsWaiting, startMs, endMs)
    return {
      ...window,
      ...(memory !== undefined ? { gpuMemoryMiB: memory } : {}),
      ...(power !== undefined ? { gpuPowerW: power } : {}),
      ...(kv ? { kvCacheUsage: kv.max } : {}),
      ...(waiting ? { requestsWaiting: waiting.max } : {}),
    }
  })
}
