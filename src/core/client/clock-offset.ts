import { requestText } from '../platform/runtime-http.ts'

/** How far the server's clock is ahead of this host's, measured from its `Date` headers. */
export interface ClockOffset {
  /** Server clock minus this host's wall clock, ms (the middle of the interval the probes allow). */
  offsetMs: number
  /** Half the width of that interval, ms: the true offset lies within `offsetMs ± accuracyMs`. */
  accuracyMs: number
  /** Probes whose answer carried a `Date` header. */
  probes: number
}

/** Options of {@link measureClockOffset}. */
export interface ClockOffsetOptions {
  apiKey?: string | undefined
  headers?: Record<string, string> | undefined
  /** Probes sent, one at a time. Default 25. */
  probes?: number
  /** Pause between probes, ms: their phases within the server's second spread over it. Default 43. */
  spacingMs?: number
  signal?: AbortSignal | undefined
}

/** This host's wall clock at high resolution, on the monotonic clock (as a segment's origin is given). */
const wallNow = (): number => performance.timeOrigin + performance.now()

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The server's clock against this host's, from the `Date` header of a few small requests
 * (`GET /v1/models`). A header names whole seconds: an answer sent between `t0` and `t1` on this
 * clock with date `D` says the offset lies in [D - t1, D + 1000 - t0]. The probes are spaced so that
 * their phases cover the server's second, and the intersection of their intervals narrows to about
 * a round trip where a probe meets the second's edge. Every host of a segmented run measures
 * against the one server, so their origins can be put on one clock. Undefined, with the reason,
 * when the server sends no usable `Date`, or the intervals disagree (a date not on the second).
 */
export async function measureClockOffset(
  baseUrl: string,
  options: ClockOffsetOptions = {},
): Promise<ClockOffset | { note: string }> {
  const probes = options.probes ?? 25
  const spacingMs = options.spacingMs ?? 43
  const headers: Record<string, string> = { ...options.headers, accept: 'application/json' }
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`
  let lower = -Infinity
  let upper = Infinity
  let dated = 0
  for (let i = 0; i < probes; i++) {
    if (i > 0) await pause(spacingMs)
    const t0 = wallNow()
    let date: string | undefined
    try {
      const response = await requestText(`${baseUrl}/v1/models`, {
        headers,
        ...(options.signal ? { signal: options.signal } : {}),
      })
      date = response.headers.date
    } catch {
      continue
    }
    const t1 = wallNow()
    const server = date === undefined ? NaN : Date.parse(date)
    if (!Number.isFinite(server)) continue
    dated++
    lower = Math.max(lower, server - t1)
    upper = Math.min(upper, server + 1000 - t0)
  }
  if (dated === 0) return { note: `the server sent no Date header in ${probes} requests` }
  if (lower > upper)
    return {
      note: `the server's Date headers disagree by ${(lower - upper).toFixed(0)} ms with any one clock (a cached date?)`,
    }
  return { offsetMs: (lower + upper) / 2, accuracyMs: (upper - lower) / 2, probes: dated }
}
