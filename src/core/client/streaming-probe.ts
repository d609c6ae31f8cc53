import type { RequestFailure, RequestRecord } from '../contract/request-record.ts'

/** Probe requests sent at most: one more each time the whole output arrived in one read. */
export const STREAMING_PROBE_TRIES = 3
/** Content events a probe needs before its reads say anything about streaming. */
const MIN_PROBE_EVENTS = 3

/** What the idle streaming probe found. */
export interface StreamingProbeOutcome {
  /** True: the server buffers; false: it streams; undefined: the probe could not tell (a failure, not an event stream, too short). */
  serverBuffers: boolean | undefined
  /** Probe requests sent. */
  requests: number
  /**
   * The first probe's failure when the server answered it with HTTP 404, 405 or 501: the endpoint of
   * `target.api` (or the model) is not served there, and every request of the load would fail the same way.
   */
  notServed?: RequestFailure
}

/**
 * Statuses that say the endpoint or the model is not there, not that the server is busy or refused this request
 * (501: llama-server's answer to `/v1/rerank` without `--reranking`).
 */
const NOT_SERVED_STATUSES: ReadonlySet<number> = new Set([404, 405, 501])

/**
 * Decides whether the server streams from evidence about the server, not the load: requests sent
 * one at a time while the client does nothing else, so a read that carries the whole output means
 * the server (or a proxy) held it back. A try whose output spread over several reads proves
 * streaming at once; only {@link STREAMING_PROBE_TRIES} tries in a row that each arrive in one read
 * say the server buffers.
 *
 * @param send Sends one probe request (the caller picks the prompt) and returns its record.
 */
export async function probeStreaming(
  send: (attempt: number) => Promise<RequestRecord>,
): Promise<StreamingProbeOutcome> {
  for (let attempt = 0; attempt < STREAMING_PROBE_TRIES; attempt++) {
    const record = await send(attempt)
    const requests = attempt + 1
    const error = record.error
    if (attempt === 0 && error?.kind === 'http' && NOT_SERVED_STATUSES.has(error.status ?? 0))
      return { serverBuffers: undefined, requests, notServed: error }
    if (!record.ok || !record.streamed || record.chunkTimes.length < MIN_PROBE_EVENTS)
      return { serverBuffers: undefined, requests }
    if (!record.readInOneBurst) return { serverBuffers: false, requests }
  }
  return { serverBuffers: true, requests: STREAMING_PROBE_TRIES }
}
