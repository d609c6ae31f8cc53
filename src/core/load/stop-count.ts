import type { LoadOptions } from '../contract/options.ts'

/** What a load's stop count counts: requests, or the sessions of a session workload (`load.sessions`; the plan allows only one of the two). */
export interface StopCount {
  /** Requests or sessions to run; undefined: the duration (or the trace's end) stops the run. */
  count: number | undefined
  unit: 'requests' | 'sessions'
}

/** The stop count of a checked load. */
export function stopCountOf(load: LoadOptions): StopCount {
  return load.sessions !== undefined
    ? { count: load.sessions, unit: 'sessions' }
    : { count: load.requests, unit: 'requests' }
}
