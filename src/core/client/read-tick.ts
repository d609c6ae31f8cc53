/**
 * A counter that advances once per turn of the event loop in which body data arrived.
 *
 * One socket read can reach the handler as several body chunks (undici hands over each
 * HTTP/1.1 chunked-encoding segment separately), so a per-chunk counter would call a buffered
 * burst "streamed". Every chunk delivered in the same synchronous pass shares a tick; the tick
 * moves on in the next microtask. Cost: one queueMicrotask per read, not per event.
 */
let tick = 0
let advanceQueued = false

function advance(): void {
  tick++
  advanceQueued = false
}

/** The tick of the body data being delivered now. */
export function currentReadTick(): number {
  if (!advanceQueued) {
    advanceQueued = true
    queueMicrotask(advance)
  }
  return tick
}

/** Reads of streamed body data on this thread so far (one per event-loop turn that had any): moves whenever a stream received bytes. */
export function readTicksSoFar(): number {
  return tick + (advanceQueued ? 1 : 0)
}
