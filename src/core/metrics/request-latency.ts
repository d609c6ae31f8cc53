import type { RequestRecord } from '../contract/request-record.ts'

/*
 * Per-request latency definitions (DESIGN.md "Metric definitions"). All in milliseconds on the
 * client's monotonic clock. They return raw differences; the accumulator drops non-finite results
 * and clamps negative ones (a clock or client bug) to 0, counting both in a warning.
 */

/**
 * Time to first token: `firstTokenAt - sentAt`. `firstTokenAt` is the first content-bearing event
 * (non-empty text, delta.content, delta.reasoning_content or delta.reasoning); a role-only first
 * chunk never counts (AIPerf's and GenAI-Perf's rule; vLLM's client counts it). Undefined when no
 * content arrived. `origin` replaces `sentAt` where a scenario measures from the scheduled send
 * time (LoadGen's Server scenario: `plannedAt`).
 */
export function timeToFirstTokenMs(record: RequestRecord, origin: number = record.sentAt): number | undefined {
  return record.firstTokenAt === undefined ? undefined : record.firstTokenAt - origin
}

/**
 * Time to first output: `firstOutputAt - sentAt`, where `firstOutputAt` is the first event carrying
 * output that is not reasoning (non-empty `text` or `delta.content`; GuideLLM's TTFOT, AIPerf's
 * TTFO). TTFT counts reasoning, TTFO does not: for a reasoning model the difference is the thinking
 * time. Undefined when no such event came (the whole reply was reasoning); `origin` as in
 * {@link timeToFirstTokenMs}.
 */
export function timeToFirstOutputMs(record: RequestRecord, origin: number = record.sentAt): number | undefined {
  return record.firstOutputAt === undefined ? undefined : record.firstOutputAt - origin
}

/**
 * End-to-end latency: `endAt - sentAt`, where `endAt` is the last content-bearing event (usage-only
 * chunks and `[DONE]` do not move it); `origin` as in {@link timeToFirstTokenMs}.
 */
export function endToEndMs(record: RequestRecord, origin: number = record.sentAt): number {
  return record.endAt - origin
}

/**
 * Time per output token after the first: `(E2E - TTFT) / (outputTokens - 1)`, i.e.
 * `(endAt - firstTokenAt) / (outputTokens - 1)`; defined only with >= 2 output tokens and a first
 * token (vLLM's TPOT, AIPerf's inter_token_latency).
 */
export function timePerOutputTokenMs(record: RequestRecord): number | undefined {
  if (record.outputTokens < 2 || record.firstTokenAt === undefined) return undefined
  return (record.endAt - record.firstTokenAt) / (record.outputTokens - 1)
}

/**
 * Calls `visit` with each inter-token latency: the gap between consecutive content-bearing events
 * `chunkTimes[i] - chunkTimes[i - 1]`, one per chunk after the first (as vLLM reports ITL, so a
 * chunk carrying several tokens is one gap). A visitor rather than an array: no allocation per request.
 */
export function forEachInterTokenLatencyMs(record: RequestRecord, visit: (gapMs: number) => void): void {
  const times = record.chunkTimes
  for (let i = 1; i < times.length; i++) visit((times[i] as number) - (times[i - 1] as number))
}

/**
 * Calls `visit` with the per-token inter-token latency of each content-bearing event after the
 * first, from the exact tokens per event (`chunkTokens`, continuous usage): an event carrying k
 * tokens that came `gap` ms after the previous event that carried any gives k latencies of
 * `gap / k` (vLLM PR 42661's per-token ITL, also SGLang's bench_serving with speculative decoding),
 * passed once as `visit(gap / k, k)`. The first event's tokens are in TTFT and give none (as the
 * per-chunk ITL has no gap before the first chunk); an event of 0 tokens gives none, its wait
 * counts in the next token's gap. Over one request the latencies sum to `endAt - firstTokenAt`
 * when the last event carries tokens. Nothing without `chunkTokens` (no estimate here).
 */
export function forEachPerTokenInterTokenLatencyMs(
  record: RequestRecord,
  visit: (perTokenMs: number, tokens: number) => void,
): void {
  const tokens = record.chunkTokens
  const times = record.chunkTimes
  if (tokens === undefined || tokens.length !== times.length || times.length < 2) return
  let previous = times[0] as number
  for (let i = 1; i < times.length; i++) {
    const k = tokens[i] as number
    if (!(k > 0)) continue
    const at = times[i] as number
    visit((at - previous) / k, k)
    previous = at
  }
}
