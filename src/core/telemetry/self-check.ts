import type { ClientHealth, SelfCheck } from '../contract/result.ts'
import type { HostLoad } from './host-load.ts'
import { STEAL_LIMIT } from '../contract/disturbances-text.ts'

export { STEAL_LIMIT }

/** Other processes using more than this many cores disturb a measurement. */
export const OTHER_CORES_LIMIT = 0.5
/** Event-loop delay p99 above this many milliseconds: timestamps were taken late. */
export const EVENT_LOOP_P99_LIMIT_MS = 30
const pct = (share: number): string => `${(share * 100).toFixed(share < 0.1 ? 1 : 0)} %`

/** The self-check of one run: the machine's load and the client's health, and what of it disturbed the run. */
export function selfCheckOf(
  host: HostLoad,
  client: Pick<ClientHealth, 'eventLoopDelayMs' | 'lateness' | 'keptUp' | 'generatorLagMs'>,
  cpuCalibrationMs?: number,
): SelfCheck {
  const disturbed: string[] = []
  if (host.otherCores !== undefined && host.otherCores > OTHER_CORES_LIMIT) {
    const named = (host.busiestOthers ?? []).map((p) => `${p.command} pid ${p.pid} ${p.cores.toFixed(2)}`)
    disturbed.push(
      `other processes used ${host.otherCores.toFixed(1)} of ${host.cores} cores${named.length > 0 ? ` (busiest: ${named.join(', ')})` : ''}`,
    )
  }
  if (host.stealShare !== undefined && host.stealShare > STEAL_LIMIT)
    disturbed.push(`the hypervisor took ${pct(host.stealShare)} of the CPU (steal)`)
  const delay = client.eventLoopDelayMs?.p99
  if (delay !== undefined && delay > EVENT_LOOP_P99_LIMIT_MS)
    disturbed.push(`the client's event loop was held up (delay p99 ${delay.toFixed(0)} ms)`)
  // Late reads are not a disturbance of their own: a server sharing the client's cores makes 10 to
  // 29 % of llama-server's requests late on a quiet machine. They are measured per request, and a
  // latency change within them is inconclusive (compare).
  const late = client.lateness
  if (!client.keptUp && client.generatorLagMs)
    disturbed.push(`the client fell behind its schedule (lag p99 ${client.generatorLagMs.p99.toFixed(0)} ms)`)
  return {
    ...host,
    ...(delay !== undefined ? { eventLoopDelayP99Ms: delay } : {}),
    ...(late ? { lateShare: late.share } : {}),
    ...(cpuCalibrationMs !== undefined ? { cpuCalibrationMs } : {}),
    disturbed,
  }
}
