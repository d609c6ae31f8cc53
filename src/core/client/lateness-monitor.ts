/** How often the monitor's timer asks to run, ms. */
export const LATENESS_TICK_MS = 5
/** Samples kept: at one per tick, the last 5.5 minutes (older windows see only what is left). */
const CAPACITY = 1 << 16

/**
 * Measures how late this thread's event loop runs, so that each request can say how late its
 * timestamps may be (`RequestRecord.clientLateMs`). A timer asks to run every
 * {@link LATENESS_TICK_MS}; each time it runs it notes how much later than asked it ran: a stall of
 * that length ended then. A request's lateness is the longest stall that overlapped its send-to-end
 * window, an upper bound of how late any of its events was read. Cost: one timer callback per tick.
 */
export class LatenessMonitor {
  readonly #at = new Float64Array(CAPACITY)
  readonly #lag = new Float64Array(CAPACITY)
  #count = 0
  #expected = 0
  #longest = 0
  #timer: ReturnType<typeof setInterval> | undefined

  start(): void {
    if (this.#timer !== undefined) return
    this.#expected = performance.now() + LATENESS_TICK_MS
    this.#timer = setInterval(() => this.#tick(), LATENESS_TICK_MS)
    // A monitor must never keep a process alive on its own.
    ;(this.#timer as { unref?: () => void }).unref?.()
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer)
    this.#timer = undefined
  }

  /**
   * The longest stall, ms, that overlapped [fromMs, toMs] (`performance.now()` times); 0 when none
   * did. A stall still going on (the timer is overdue now, as when a request completes in the very
   * turn that ended a stall) counts too.
   */
  lateBetween(fromMs: number, toMs: number): number {
    const overdue = this.#timer === undefined ? 0 : performance.now() - this.#expected
    let late = overdue > 0 && this.#expected <= toMs ? overdue : 0
    const count = this.#count
    const oldest = Math.max(0, count - CAPACITY)
    // Binary search for the first sample at or after fromMs.
    let low = oldest
    let high = count
    while (low < high) {
      const mid = (low + high) >>> 1
      if ((this.#at[mid % CAPACITY] as number) < fromMs) low = mid + 1
      else high = mid
    }
    // A sample at `at` with lag L stands for a stall over [at - L, at]: it overlaps while at - L <= toMs.
    const last = toMs + this.#longest
    for (let i = low; i < count; i++) {
      const at = this.#at[i % CAPACITY] as number
      if (at > last) break
      const lag = this.#lag[i % CAPACITY] as number
      if (at - lag <= toMs && lag > late) late = lag
    }
    return late
  }

  #tick(): void {
    const now = performance.now()
    const lag = Math.max(0, now - this.#expected)
    const slot = this.#count % CAPACITY
    this.#at[slot] = now
    this.#lag[slot] = lag
    this.#count++
    if (lag > this.#longest) this.#longest = lag
    this.#expected = now + LATENESS_TICK_MS
  }
}
