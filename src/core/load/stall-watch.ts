import type { StallReport } from '../contract/result.ts'

/** Silence after which progress says the server stopped sending, ms (or half the stall timeout when that is shorter). */
export const STALL_NOTICE_MS = 5_000
/** How often the watch looks, ms: a stall is noticed and acted on at most this late. */
const CHECK_INTERVAL_MS = 500

/** Options of {@link startStallWatch}. */
export interface StallWatchOptions {
  /** Silence with requests in flight after which the run is stopped, ms (`target.stallTimeoutMs`). */
  timeoutMs: number
  /** A count that moves whenever the server sent something (a body read, a finished request). */
  activity: () => number
  /** Requests in flight now. */
  inFlight: () => number
  /** Called every check while the server is silent past {@link STALL_NOTICE_MS}, with how long and how many wait. */
  onSilence: (silentMs: number, inFlight: number) => void
  /** Called once when the silence reaches `timeoutMs`: stop the run here. */
  onStall: (stall: StallReport) => void
}

/** A running {@link startStallWatch}. */
export interface StallWatch {
  /** The stall, when the silence reached the timeout. */
  readonly stall: StallReport | undefined
  stop(): void
}

/**
 * Watches for a server that stopped answering: requests in flight and no byte from any of them.
 * Silence counts from the last activity or from the moment requests were first outstanding after
 * none were, so a pause between loads is not a stall. Checks every {@link CHECK_INTERVAL_MS}
 * on an unref'd timer.
 */
export function startStallWatch(options: StallWatchOptions): StallWatch {
  const noticeMs = Math.min(STALL_NOTICE_MS, options.timeoutMs / 2)
  let lastActivity = options.activity()
  let quietSince = performance.now()
  let stall: StallReport | undefined
  const timer = setInterval(() => {
    const now = performance.now()
    const activity = options.activity()
    const inFlight = options.inFlight()
    if (activity !== lastActivity || inFlight === 0) {
      lastActivity = activity
      quietSince = now
      return
    }
    const silentMs = now - quietSince
    if (silentMs >= options.timeoutMs) {
      stall = { silentMs: Math.round(silentMs), inFlight, stallTimeoutMs: options.timeoutMs }
      clearInterval(timer)
      options.onStall(stall)
    } else if (silentMs >= noticeMs) {
      options.onSilence(silentMs, inFlight)
    }
  }, CHECK_INTERVAL_MS)
  timer.unref?.()
  return {
    get stall() {
      return stall
    },
    stop: () => clearInterval(timer),
  }
}
