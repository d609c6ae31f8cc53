import { timePerOutputTokenMs, timeToFirstTokenMs } from '../metrics/request-latency.ts'
import type { RequestRecord } from '../contract/request-record.ts'

/**
 * One request seen from both ends: the client's clock and the `timings` object llama-server puts
 * on its last chunk. llama-server's `prompt_ms` runs from the moment a slot takes the request to
 * the first sampled token; its `predicted_per_token_ms` is the generation time divided by
 * `predicted_n - 1` (the first token comes free with the prompt), which is exactly TPOT.
 */
export interface LlamaTimingPair {
  /** Position of the request in the run. */
  index: number
  /** Client TTFT, ms. */
  clientTtftMs: number
  /** Server `prompt_ms`: slot start to first sampled token, ms. */
  serverPromptMs: number
  /** `clientTtftMs - serverPromptMs`: HTTP, tokenization, waiting for a free slot, delivery of the first chunk, ms. */
  ttftOutsidePromptMs: number
  /** Client TPOT, ms: (E2E - TTFT) / (outputTokens - 1); undefined below 2 tokens. */
  clientTpotMs: number | undefined
  /** Server `predicted_per_token_ms`, ms; undefined below 2 tokens. */
  serverTpotMs: number | undefined
  /** Output tokens as the client counted them (usage). */
  clientOutputTokens: number
  /** Server `predicted_n`. */
  serverOutputTokens: number | undefined
}

/** Medians (and spread) of {@link LlamaTimingPair}s over a run. */
export interface LlamaTimingsComparison {
  /** Completed, streamed requests that carried `timings`. */
  requests: number
  /** Requests whose usage `completion_tokens` equals the server's `predicted_n`. */
  tokenCountsAgree: number
  ttft: {
    /** Median client TTFT, ms. */
    clientP50Ms: number
    /** Median server `prompt_ms`, ms. */
    serverPromptP50Ms: number
    /** Median and 90th percentile of client TTFT minus server `prompt_ms`, per request, ms. */
    outsidePromptP50Ms: number
    outsidePromptP90Ms: number
    /** Smallest per-request difference, ms (negative would mean the client clock missed part of the server's work). */
    outsidePromptMinMs: number
  }
  tpot: {
    /** Median client TPOT, ms. */
    clientP50Ms: number
    /** Median server `predicted_per_token_ms`, ms. */
    serverP50Ms: number
    /** Median, smallest and largest per-request ratio client TPOT / server TPOT. */
    ratioP50: number
    ratioMin: number
    ratioMax: number
  }
  /** Decode speed of one stream, tokens/s: 1000 / median TPOT, from each end. */
  decodeTokensPerSec: { client: number; server: number }
  pairs: LlamaTimingPair[]
}

/** Pairs each completed, streamed request's client timings with llama-server's `timings`; skips requests without them. */
export function llamaTimingPairs(records: readonly RequestRecord[]): LlamaTimingPair[] {
  const pairs: LlamaTimingPair[] = []
  for (const r of records) {
    const t = r.serverTimings
    // A response that arrived in one read has no client-side token timings to compare (as in the metrics).
    if (!r.ok || !r.streamed || t === undefined || r.firstTokenAt === undefined || t.prompt_ms === undefined) continue
    const clientTtftMs = timeToFirstTokenMs(r) as number
    const clientTpotMs = timePerOutputTokenMs(r)
    const serverTpotMs = t.predicted_n !== undefined && t.predicted_n >= 2 ? t.predicted_per_token_ms : undefined
    pairs.push({
      index: r.index,
      clientTtftMs,
      serverPromptMs: t.prompt_ms,
      ttftOutsidePromptMs: clientTtftMs - t.prompt_ms,
      clientTpotMs,
      serverTpotMs,
      clientOutputTokens: r.outputTokens,
      serverOutputTokens: t.predicted_n,
    })
  }
  return pairs
}

/**
 * Compares what the client measured with what llama-server reports for the same requests.
 * Needs `recordRequests: true` (the records) against llama-server; undefined when no request
 * carried `timings`.
 */
export function compareLlamaTimings(records: readonly RequestRecord[]): LlamaTimingsComparison | undefined {
  const pairs = llamaTimingPairs(records)
  if (pairs.length === 0) return undefined
  const outside = pairs.map((p) => p.ttftOutsidePromptMs)
  const decode = pairs.filter(
    (p): p is LlamaTimingPair & { clientTpotMs: number; serverTpotMs: number } =>
      p.clientTpotMs !== undefined && p.serverTpotMs !== undefined && p.serverTpotMs > 0,
  )
  const ratios = decode.map((p) => p.clientTpotMs / p.serverTpotMs)
  const clientTpot = median(decode.map((p) => p.clientTpotMs))
  const serverTpot = median(decode.map((p) => p.serverTpotMs))
  return {
    requests: pairs.length,
    tokenCountsAgree: pairs.filter((p) => p.serverOutputTokens === p.clientOutputTokens).length,
    ttft: {
      clientP50Ms: median(pairs.map((p) => p.clientTtftMs)),
      serverPromptP50Ms: median(pairs.map((p) => p.serverPromptMs)),
      outsidePromptP50Ms: median(outside),
      outsidePromptP90Ms: quantile(outside, 0.9),
      outsidePromptMinMs: Math.min(...outside),
    },
    tpot: {
      clientP50Ms: clientTpot,
      serverP50Ms: serverTpot,
      ratioP50: median(ratios),
      ratioMin: ratios.length > 0 ? Math.min(...ratios) : Number.NaN,
      ratioMax: ratios.length > 0 ? Math.max(...ratios) : Number.NaN,
    },
    decodeTokensPerSec: { client: 1000 / clientTpot, server: 1000 / serverTpot },
    pairs,
  }
}

function median(values: readonly number[]): number {
  return quantile(values, 0.5)
}

/** Linear-interpolated quantile of a small sample (NaN when empty). */
function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const pos = (sorted.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo)
}
