import type { ClientServerTtft } from './server-metrics.ts'

/**
 * The sentence naming a client overhead whose share of TTFT p50 exceeds `share` even at the far
 * end of the server histogram's precision; undefined when it does not, or when the precision is
 * unknown (the server's p50 in its `+Inf` bucket, or JSON's `null`).
 */
export function overheadNote(
  overhead: ClientServerTtft,
  clientP50: number | undefined,
  share: number,
): string | undefined {
  const precision = overhead.p50PrecisionMs
  if (
    clientP50 === undefined ||
    !(clientP50 > 0) ||
    typeof precision !== 'number' ||
    !Number.isFinite(precision) ||
    !Number.isFinite(overhead.p50)
  )
    return undefined
  const atLeast = (overhead.p50 - precision) / clientP50
  if (!(atLeast > share)) return undefined
  return `The client and the network make up at least ${Math.round(atLeast * 100)} % of TTFT p50 (client minus server ${overhead.p50.toFixed(1)} ms, the server's p50 known to ±${precision.toFixed(0)} ms)`
}
