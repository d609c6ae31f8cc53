import type { ServerMetricsDialect } from '../../contract/server-metrics.ts'
import type { PrometheusExposition } from './prometheus-text.ts'

/**
 * Where each figure of the documented set lives in one server's exposition. Each entry lists
 * sample names; where several are given, the first present is read (a server renamed it), and
 * `sum` entries add their parts. Counter and gauge names are sample names as served
 * (`vllm:prompt_tokens_total`); histogram names are the base name in seconds (`…_bucket`,
 * `…_count` and `…_sum` are appended).
 */
export interface DialectNames {
  dialect: ServerMetricsDialect
  /** A sample name that only this server serves: its presence picks the dialect. */
  marker: RegExp
  promptTokens?: CounterRef
  generatedTokens?: CounterRef
  finishedRequests?: CounterRef
  prefixQueries?: CounterRef
  prefixHits?: CounterRef
  preemptions?: CounterRef
  requestsRunning?: string[]
  requestsWaiting?: string[]
  kvCacheUsage?: string[]
  ttft?: string[]
  queueTime?: string[]
  prefillTime?: string[]
  decodeTime?: string[]
  e2e?: string[]
  itl?: string[]
  specDrafts?: CounterRef
  specDraftTokens?: CounterRef
  specAcceptedTokens?: CounterRef
}

/** One counter (first name present) or the sum of several. */
export type CounterRef = { first: string[] } | { sum: string[] }

const first = (...names: string[]): CounterRef => ({ first: names })

/**
 * vLLM V1 (`vllm/v1/metrics/loggers.py`): prefix-cache queries and hits count tokens;
 * `kv_cache_usage_perc` is a 0..1 share despite its name (`gpu_cache_usage_perc` before 0.10).
 */
const VLLM: DialectNames = {
  dialect: 'vllm',
  marker: /^vllm:/,
  promptTokens: first('vllm:prompt_tokens_total'),
  generatedTokens: first('vllm:generation_tokens_total'),
  finishedRequests: first('vllm:request_success_total'),
  prefixQueries: first('vllm:prefix_cache_queries_total', 'vllm:gpu_prefix_cache_queries_total'),
  prefixHits: first('vllm:prefix_cache_hits_total', 'vllm:gpu_prefix_cache_hits_total'),
  preemptions: first('vllm:num_preemptions_total'),
  requestsRunning: ['vllm:num_requests_running'],
  requestsWaiting: ['vllm:num_requests_waiting'],
  kvCacheUsage: ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc'],
  ttft: ['vllm:time_to_first_token_seconds'],
  queueTime: ['vllm:request_queue_time_seconds'],
  prefillTime: ['vllm:request_prefill_time_seconds'],
  decodeTime: ['vllm:request_decode_time_seconds'],
  e2e: ['vllm:e2e_request_latency_seconds'],
  itl: ['vllm:inter_token_latency_seconds', 'vllm:time_per_output_token_seconds'],
  specDrafts: first('vllm:spec_decode_num_drafts_total'),
  specDraftTokens: first('vllm:spec_decode_num_draft_tokens_total'),
  specAcceptedTokens: first('vllm:spec_decode_num_accepted_tokens_total'),
}

/**
 * SGLang (`python/sglang/srt/metrics/collector.py`, `--enable-metrics`). Its `cache_hit_rate`
 * gauge covers only the latest prefill batch (and drops to 0 on decode logs), so the hit rate
 * comes from the counters; its speculative figures are per-interval gauges, not counters, and
 * are not read. No preemption counter.
 */
const SGLANG: DialectNames = {
  dialect: 'sglang',
  marker: /^sglang:/,
  promptTokens: first('sglang:prompt_tokens_total'),
  generatedTokens: first('sglang:generation_tokens_total'),
  finishedRequests: first('sglang:num_requests_total'),
  prefixQueries: first('sglang:prompt_tokens_total'),
  prefixHits: first('sglang:cached_tokens_total'),
  requestsRunning: ['sglang:num_running_reqs'],
  requestsWaiting: ['sglang:num_queue_reqs'],
  kvCacheUsage: ['sglang:token_usage'],
  ttft: ['sglang:time_to_first_token_seconds'],
  queueTime: ['sglang:queue_time_seconds'],
  e2e: ['sglang:e2e_request_latency_seconds'],
  itl: ['sglang:inter_token_latency_seconds'],
}

/**
 * llama.cpp `llama-server --metrics` (`tools/server/`; names as this project's build serves
 * them, test/fixtures/server-metrics/): `prompt_tokens_total` excludes the tokens reused from a
 * slot's cache, which `prompt_tokens_cached_total` counts; the slot gauges are read live from the
 * server loop. No latency histograms; `kv_cache_usage_ratio` only in older builds.
 */
const LLAMACPP: DialectNames = {
  dialect: 'llamacpp',
  marker: /^llamacpp:/,
  promptTokens: { sum: ['llamacpp:prompt_tokens_total', 'llamacpp:prompt_tokens_cached_total'] },
  generatedTokens: first('llamacpp:tokens_predicted_total'),
  prefixQueries: { sum: ['llamacpp:prompt_tokens_total', 'llamacpp:prompt_tokens_cached_total'] },
  prefixHits: first('llamacpp:prompt_tokens_cached_total'),
  requestsRunning: ['llamacpp:requests_processing'],
  requestsWaiting: ['llamacpp:requests_deferred'],
  kvCacheUsage: ['llamacpp:kv_cache_usage_ratio'],
  specDrafts: first('llamacpp:spec_decode_num_drafts_total'),
  specDraftTokens: first('llamacpp:spec_decode_num_draft_tokens_total'),
  specAcceptedTokens: first('llamacpp:spec_decode_num_accepted_tokens_total'),
}

/**
 * TensorRT-LLM `trtllm-serve` (`/prometheus/metrics`, `tensorrt_llm/metrics/collector.py`; the
 * `trtllm_` names of 2026 releases). Its speculative counters give no draft count, so no
 * acceptance length is derived.
 */
const TRTLLM: DialectNames = {
  dialect: 'trtllm',
  marker: /^trtllm_/,
  promptTokens: first('trtllm_prompt_tokens_total'),
  generatedTokens: first('trtllm_generation_tokens_total'),
  finishedRequests: first('trtllm_request_success_total'),
  prefixQueries: first('trtllm_prompt_tokens_total'),
  prefixHits: first('trtllm_prompt_cached_tokens_total'),
  requestsRunning: ['trtllm_num_requests_running'],
  requestsWaiting: ['trtllm_num_requests_waiting'],
  kvCacheUsage: ['trtllm_kv_cache_utilization'],
  ttft: ['trtllm_time_to_first_token_seconds'],
  queueTime: ['trtllm_request_queue_time_seconds'],
  prefillTime: ['trtllm_request_prefill_time_seconds'],
  decodeTime: ['trtllm_request_decode_time_seconds'],
  e2e: ['trtllm_e2e_request_latency_seconds'],
  itl: ['trtllm_time_per_output_token_seconds'],
}

/** Every dialect, in the order they are tried. */
export const DIALECTS: readonly DialectNames[] = [VLLM, SGLANG, LLAMACPP, TRTLLM]

/** The dialect whose names this exposition uses, or undefined when none of ours. */
export function detectDialect(exposition: PrometheusExposition): DialectNames | undefined {
  for (const dialect of DIALECTS) {
    for (const name of exposition.names) if (dialect.marker.test(name)) return dialect
  }
  return undefined
}
