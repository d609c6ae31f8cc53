import type { ResolvedLoad } from '../contract/options.ts'
import type { ArrivalSchedule } from './arrival-schedule.ts'
import type { InFlightRequests } from './in-flight.ts'
import { rampTimeOf, rampValueAt } from './ramp.ts'
import { SendBurst, stopBeforeSend, type StopReason } from './send-loop.ts'
import { yieldToEventLoop } from './waker.ts'

/**
 * The closed loop: exactly `cap` requests in flight (ramped up when the schedule has a ramp), each
 * completion starting the next, until a stop rule holds or the wall clock passes `deadline`.
 * Undefined when a dispatch failed.
 */
export async function driveClosedLoop(
  run: InFlightRequests,
  schedule: Extract<ArrivalSchedule, { kind: 'closed' }>,
  load: ResolvedLoad,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<StopReason | undefined> {
  const { ramp } = schedule
  const burst = new SendBurst()
  for (;;) {
    if (burst.long) {
      burst.paused()
      await yieldToEventLoop()
    }
    const stop = stopBeforeSend(run, schedule, load, signal)
    if (stop === 'failed') return undefined
    if (stop) return stop
    const now = performance.now()
    if (now >= deadline) return 'duration'
    const elapsed = run.firstDispatchAt === undefined ? 0 : now - run.firstDispatchAt
    const allowed = ramp ? Math.max(1, Math.floor(rampValueAt(ramp, elapsed) + 1e-9)) : schedule.cap
    if (run.size < allowed) {
      run.send(run.dispatched, undefined)
      burst.sent()
    } else {
      burst.paused()
      let wakeAt = deadline
      if (ramp && elapsed < ramp.durationMs && run.firstDispatchAt !== undefined) {
        const step = rampTimeOf(ramp, allowed + 1)
        if (step !== undefined) wakeAt = Math.min(wakeAt, run.firstDispatchAt + step)
      }
      await run.waker.wait(wakeAt - now)
    }
  }
}
