import type { Histogram } from 'hdr-histogram-js'
import type { RequestRecord } from '../contract/request-record.ts'
import type { SoakWindow, SoakWindowLatency } from '../contract/result.ts'
import { createHistogram, LATENCY_HIGHEST_TRACKABLE_US, LATENCY_UNITS_PER_MS } from '../metrics/histogram.ts'
import { endToEndMs, timePerOutputTokenMs, timeToFirstTokenMs } from '../metrics/request-latency.ts'

/** What other work did on the machine over one window (from `startHostLoad`), as a soak window keeps it. */
export interface WindowHostLoad {
  otherCores?: number
  stealShare?: number
}

/** Latencies of a window still open to late records, in histograms (3 digits, as every figure of a run). */
interface OpenLatencies {
  ttft: Histogram
  tpot: Histogram
  e2e: Histogram
  late: Histogram
}

/** One window: its counts, and its latencies while open (then only their percentiles). */
interface WindowState {
  completed: number
  failed: number
  outputTokens: number
  open: OpenLatencies | undefined
  ttftMs: SoakWindowLatency | null
  tpotMs: SoakWindowLatency | null
  e2eMs: SoakWindowLatency | null
  clientLateMsP99: number | undefined
  host?: WindowHostLoad
}

/** Windows behind the newest that still take records: a record is handed over after its end, never long after. */
const OPEN_BEHIND = 1

function windowState(): WindowState {
  return {
    completed: 0,
    failed: 0,
    outputTokens: 0,
    open: undefined,
    ttftMs: null,
    tpotMs: null,
    e2eMs: null,
    clientLateMsP99: undefined,
  }
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

/** Writes the open histograms' percentiles into the window (they stay open for late records). */
function summarize(window: WindowState): void {
  const open = window.open
  if (!open) return
  window.ttftMs = percentiles(open.ttft)
  window.tpotMs = percentiles(open.tpot)
  window.e2eMs = percentiles(open.e2e)
  window.clientLateMsP99 = percentiles(open.late)?.p99
}

/**
 * The windows of a soak as its requests finish: a request belongs to the window it ended in, as
 * output tokens per second count where they were produced. Requests that end after the last whole
 * window (the drain) are measured in the run's totals but in no window: the drain's falling
 * concurrency would otherwise read as a trend. Only the newest two windows hold histograms (four
 * of about 95 KB each); older ones keep their percentiles, so a day-long soak in one-minute windows
 * holds under a megabyte of histograms, not half a gigabyte.
 */
export class SoakWindows {
  readonly #windowMs: number
  readonly #windows: WindowState[]
  #origin: number | undefined
  /** Windows below this index are closed: their histograms are gone. */
  #closedBelow = 0

  /** @param windowCount Whole windows in the soak's duration. */
  constructor(windowMs: number, windowCount: number) {
    this.#windowMs = windowMs
    this.#windows = Array.from({ length: windowCount }, windowState)
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
    const index = Math.floor((record.endAt - this.#origin) / this.#windowMs)
    const window = this.#windows[index]
    if (window === undefined || index < this.#closedBelow) return
    this.#closeBelow(index - OPEN_BEHIND)
    if (!record.ok) {
      window.failed++
      return
    }
    window.completed++
    window.outputTokens += record.outputTokens
    const latency = () => createHistogram(LATENCY_HIGHEST_TRACKABLE_US)
    window.open ??= { ttft: latency(), tpot: latency(), e2e: latency(), late: latency() }
    recordMs(window.open.ttft, timeToFirstTokenMs(record))
    recordMs(window.open.tpot, timePerOutputTokenMs(record))
    recordMs(window.open.e2e, endToEndMs(record))
    recordMs(window.open.late, record.clientLateMs)
  }

  /** Keeps only the percentiles of the windows below `index`. */
  #closeBelow(index: number): void {
    for (; this.#closedBelow < Math.min(index, this.#windows.length); this.#closedBelow++) {
      const window = this.#windows[this.#closedBelow]!
      summarize(window)
      window.open = undefined
    }
  }

  /** What other work did over window `index` (taken when the window closed). */
  setHostLoad(index: number, host: WindowHostLoad): void {
    const window = this.#windows[index]
    if (window) window.host = host
  }

  /** The figures of window `index` so far (complete once it closed); undefined past the last. */
  windowAt(index: number): SoakWindow | undefined {
    const window = this.#windows[index]
    if (!window) return undefined
    summarize(window)
    return this.#figures(window, index)
  }

  /** The windows' figures; GPU and server gauges are added from their own series ({@link soakWindowsWithGauges}). */
  finish(): SoakWindow[] {
    this.#closeBelow(this.#windows.length)
    return this.#windows.map((w, index) => this.#figures(w, index))
  }

  #figures(w: WindowState, index: number): SoakWindow {
    return {
      startMs: index * this.#windowMs,
      endMs: (index + 1) * this.#windowMs,
      completed: w.completed,
      failed: w.failed,
      outputTokensPerSec: w.outputTokens / (this.#windowMs / 1000),
      ttftMs: w.ttftMs,
      tpotMs: w.tpotMs,
      e2eMs: w.e2eMs,
      ...(w.clientLateMsP99 !== undefined ? { clientLateMsP99: w.clientLateMsP99 } : {}),
      ...(w.host?.otherCores !== undefined ? { otherCores: w.host.otherCores } : {}),
      ...(w.host?.stealShare !== undefined ? { stealShare: w.host.stealShare } : {}),
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
