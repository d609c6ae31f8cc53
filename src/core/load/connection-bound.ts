import type { LoadOptions } from '../contract/options.ts'

/** Upper bound of pooled connections when the load gives no concurrency (open loop). */
const MAX_OPEN_LOOP_CONNECTIONS = 4096

/**
 * Connections a client pools for `load`: its concurrency, else one per request (or session), at most 4,096; 4,096
 * when `unbounded` (an agentic trace's sub-agents add requests beside their session's, with no bound the load knows).
 */
export function connectionsFor(load: LoadOptions, unbounded = false): number {
  if (unbounded) return MAX_OPEN_LOOP_CONNECTIONS
  const bound =
    load.concurrency ?? Math.min(load.requests ?? load.sessions ?? MAX_OPEN_LOOP_CONNECTIONS, MAX_OPEN_LOOP_CONNECTIONS)
  return Math.max(1, bound)
}
