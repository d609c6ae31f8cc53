/**
 * One clock that every thread and process of a machine shares: CLOCK_MONOTONIC, which
 * `process.hrtime` reads (Node, Bun and Deno). `performance.now()` reads the same clock minus an
 * origin of its own per thread (per process), so adding {@link clockOffsetMs} to a
 * `performance.now()` value puts it on the shared clock with sub-microsecond error and without
 * the wall-clock anchoring (and NTP steps) of `performance.timeOrigin`.
 */

/** CLOCK_MONOTONIC now, in milliseconds (nanosecond source). */
export function monotonicNowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6
}

/**
 * Shared monotonic clock minus `performance.now()` in this thread, ms: the tightest of `samples`
 * bracketed readings, so the error stays below one `performance.now()` call (~0.1 µs).
 */
export function clockOffsetMs(samples = 100): number {
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
