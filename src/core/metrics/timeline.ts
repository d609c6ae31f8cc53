import type { RequestRecord } from '../contract/request-record.ts'
import type { Timeline } from '../contract/result.ts'

/** Default window length of a {@link Timeline}, milliseconds. */
export const TIMELINE_WINDOW_MS = 1000

/**
 * Builds the per-window {@link Timeline} of a run while it runs, in memory bounded by the run's
 * length (one number per window and series), never by its request count.
 */
export class TimelineAccumulator {
  readonly #windowMs: number
  readonly #start: number
  readonly #requests: number[] = []
  readonly #outputTokens: number[] = []
  readonly #totalTokens: number[] = []
  readonly #inFlightMax: number[] = []
  #inFlight = 0
  #end = 0

  /** @param start `performance.now()` of the first measured dispatch. */
  constructor(start: number, windowMs: number = TIMELINE_WINDOW_MS) {
    this.#start = start
    this.#windowMs = windowMs
  }

  #window(t: number): number {
    return Math.max(0, Math.floor((t - this.#start) / this.#windowMs))
  }

  #bump(series: number[], window: number, amount: number): void {
    while (series.length <= window) series.push(0)
    series[window] = (series[window] ?? 0) + amount
  }

  /** A request was dispatched at `t`. */
  dispatched(t: number): void {
    this.#inFlight++
    const w = this.#window(t)
    while (this.#inFlightMax.length <= w) this.#inFlightMax.push(this.#inFlight - 1)
    if (this.#inFlight > (this.#inFlightMax[w] ?? 0)) this.#inFlightMax[w] = this.#inFlight
  }

  /** A measured request finished (ok or not). Output tokens are spread over its content-bearing chunks. */
  finished(record: RequestRecord): void {
    this.#inFlight--
    const endW = this.#window(record.endAt)
    while (this.#inFlightMax.length <= endW) this.#inFlightMax.push(this.#inFlight + 1)
    if (!record.ok) return
    this.#end = Math.max(this.#end, record.endAt)
    this.#bump(this.#requests, endW, 1)
    this.#bump(this.#totalTokens, endW, record.inputTokens)
    const chunks = record.chunkTimes.length
    if (chunks === 0) {
      this.#bump(this.#outputTokens, endW, record.outputTokens)
      this.#bump(this.#totalTokens, endW, record.outputTokens)
      return
    }
    const perChunk = record.outputTokens / chunks
    for (const t of record.chunkTimes) {
      const w = this.#window(t)
      this.#bump(this.#outputTokens, w, perChunk)
      this.#bump(this.#totalTokens, w, perChunk)
    }
  }

  /** The series; the partial last window is flagged so noise estimates can drop it. */
  finish(): Timeline {
    const windows = Math.max(this.#requests.length, this.#outputTokens.length, this.#inFlightMax.length)
    const pad = (s: number[]) => Array.from({ length: windows }, (_, i) => s[i] ?? 0)
    const lastWindowMs = windows === 0 ? 0 : this.#end - this.#start - (windows - 1) * this.#windowMs
    return {
      windowMs: this.#windowMs,
      requests: pad(this.#requests),
      outputTokens: pad(this.#outputTokens).map((v) => Math.round(v * 1000) / 1000),
      totalTokens: pad(this.#totalTokens).map((v) => Math.round(v * 1000) / 1000),
      inFlightMax: pad(this.#inFlightMax),
      lastWindowPartial: lastWindowMs < this.#windowMs,
    }
  }
}
