/**
 * One clock that every process and thread of this machine shares: CLOCK_MONOTONIC, which
 * `process.hrtime` reads in Node, Bun and Deno. `performance.now()` reads the same clock minus a
 * per-process (per-thread) origin, so adding {@link monotonicOffsetMs} to a `performance.now()`
 * value puts it on the shared clock with microsecond precision, without the wall-clock anchoring
 * (and NTP steps) of `performance.timeOrigin`.
 */

/** CLOCK_MONOTONIC now, in milliseconds (nanosecond source). */
export function monotonicNowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6
}

/**
 * Shared clock minus `performance.now()` in this thread, in milliseconds: the tightest of
 * `samples` bracketed readings, so the error is below one `performance.now()` call (~0.1 µs).
 */
export function monotonicOffsetMs(samples = 200): number {
  let best = Infinity
  let offset = 0
  for (let i = 0; i < samples; i++) {
    const before = performance.now()
    const mono = monotonicNowMs()
    const after = performance.now()
    if (after - before < best) {
      best = after - before
      offset = mono - (before + after) / 2
    }
  }
  return offset
}
