import type { ResolvedStopWhen, StopWhenLatency } from '../contract/options.ts'

/**
 * How often the watch reads the window when no request finishes, ms:
 * the stop comes at most this late after `forMs`.
 */
const CHECK_INTERVAL_MS = 100
/**
 * Finished requests read the window at most this often, ms: sorting it per request would cost
 * O(n log n) each at high rates.
 */
const MIN_CHECK_GAP_MS = 20

/** What the watch needs of a finished measured request (ms on the `performance.now()` clock). */
export interface FinishedRequest {
  /** When it finished. */
  endAt: number
  ok: boolean
  /** Its TTFT, when it produced a token. */
  ttftMs: number | undefined
  /** Its end-to-end latency, when it completed. */
  e2eMs: number | undefined
}

/** The stop the watch decided: times from the first measured dispatch, ms. */
export interface StopWhenTrigger {
  atMs: number
  conditionSinceMs: number
  reason: string
}

/** The abort reason of a load that `stopWhen` stopped: the load's warnings name the stop, not an abort. */
export class StopWhenStop extends Error {
  constructor(reason: string) {
    super(`stopWhen: ${reason}`)
    this.name = 'StopWhenStop'
  }
}

/** Options of {@link StopWhenWatch}. */
export interface StopWhenWatchOptions {
  stopWhen: ResolvedStopWhen
  /** `performance.now()` of the first measured dispatch; undefined before it (nothing is read then). */
  origin: () => number | undefined
  /** Called once, when the condition has held for `forMs`: stop the load here. */
  onStop: (trigger: StopWhenTrigger) => void
  /**
   * Read the window on a timer too (so a server that stops answering is still noticed). Default
   * true; tests pass false and call {@link StopWhenWatch.check}.
   */
  timer?: boolean
}

function nearestRank(sorted: readonly number[], percentile: number): number {
  const rank = Math.max(1, Math.ceil((percentile / 100) * sorted.length))
  return sorted[Math.min(sorted.length, rank) - 1] as number
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))} s`
}

function percent(share: number): string {
  return `${Number((share * 100).toFixed(1))} %`
}

/**
 * Watches the trailing `windowMs` of finished measured requests for `stopWhen`'s limits (any one
 * exceeded is the condition) and calls `onStop` once the condition has held for `forMs` without a
 * break. Read as requests finish (at most every {@link MIN_CHECK_GAP_MS}) and every
 * {@link CHECK_INTERVAL_MS} on an unref'd timer. An empty window changes nothing: the last figures
 * stand, so a server that first fails and then stops answering is still stopped, and one that was
 * fine and goes quiet is left to the stall watch.
 */
export class StopWhenWatch {
  readonly #options: StopWhenWatchOptions
  readonly #window: FinishedRequest[] = []
  #head = 0
  #lastCheck = Number.NEGATIVE_INFINITY
  #since: number | undefined
  #reason = ''
  #trigger: StopWhenTrigger | undefined
  readonly #timer: ReturnType<typeof setInterval> | undefined

  constructor(options: StopWhenWatchOptions) {
    this.#options = options
    if (options.timer !== false) {
      this.#timer = setInterval(() => this.check(performance.now()), CHECK_INTERVAL_MS)
      this.#timer.unref?.()
    }
  }

  /** The stop, once decided. */
  get trigger(): StopWhenTrigger | undefined {
    return this.#trigger
  }

  /** A measured request finished (ignored before the first measured dispatch, and after the stop). */
  add(request: FinishedRequest, now: number = request.endAt): void {
    if (this.#trigger || this.#options.origin() === undefined) return
    this.#window.push(request)
    if (now - this.#lastCheck >= MIN_CHECK_GAP_MS) this.check(now)
  }

  /** Reads the window at `now` and stops the load when the condition has held for `forMs`. */
  check(now: number): void {
    const origin = this.#options.origin()
    if (this.#trigger || origin === undefined) return
    this.#lastCheck = now
    const { stopWhen } = this.#options
    this.#prune(now - stopWhen.windowMs)
    if (this.#head < this.#window.length) {
      const exceeded = this.#exceeded()
      if (exceeded.length === 0) this.#since = undefined
      else {
        this.#since ??= now
        this.#reason = exceeded.join('; ')
      }
    }
    if (this.#since !== undefined && now - this.#since >= stopWhen.forMs) {
      this.#trigger = { atMs: now - origin, conditionSinceMs: this.#since - origin, reason: this.#reason }
      this.stop()
      this.#options.onStop(this.#trigger)
    }
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer)
  }

  #prune(from: number): void {
    while (this.#head < this.#window.length && (this.#window[this.#head] as FinishedRequest).endAt < from) this.#head++
    // Drop the read-past head now and then, not per request (shift is O(n)).
    if (this.#head > 1024 && this.#head * 2 > this.#window.length) {
      this.#window.splice(0, this.#head)
      this.#head = 0
    }
  }

  /** The limits the window exceeds, each with its figures. */
  #exceeded(): string[] {
    const { stopWhen } = this.#options
    const requests = this.#window.slice(this.#head)
    const last = (count: number) => `request${count === 1 ? '' : 's'} in the last ${seconds(stopWhen.windowMs)}`
    const out: string[] = []
    if (stopWhen.errorRate !== undefined) {
      const failed = requests.filter((r) => !r.ok).length
      const share = failed / requests.length
      const figures = `${failed} of ${requests.length} ${last(requests.length)}`
      if (share > stopWhen.errorRate)
        out.push(`error rate ${percent(share)} > ${percent(stopWhen.errorRate)} (${figures})`)
    }
    const latency = (
      name: string,
      limits: StopWhenLatency | undefined,
      pick: (r: FinishedRequest) => number | undefined,
    ) => {
      if (limits === undefined) return
      const values = requests
        .map(pick)
        .filter((v): v is number => v !== undefined)
        .sort((a, b) => a - b)
      if (values.length === 0) return
      for (const [key, percentile] of [
        ['p50', 50],
        ['p99', 99],
      ] as const) {
        const limit = limits[key]
        const value = limit === undefined ? undefined : nearestRank(values, percentile)
        if (limit !== undefined && value !== undefined && value > limit)
          out.push(`${name} ${key} ${Math.round(value)} ms > ${limit} ms (${values.length} ${last(values.length)})`)
      }
    }
    latency('TTFT', stopWhen.ttftMs, (r) => (r.ok ? r.ttftMs : undefined))
    latency('E2E', stopWhen.e2eMs, (r) => (r.ok ? r.e2eMs : undefined))
    return out
  }
}
