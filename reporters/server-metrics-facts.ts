import type { BenchmarkResult } from '../src/core/contract/result.ts'
import type { ServerGaugeSummary, ServerMetricsDialect } from '../src/core/contract/server-metrics.ts'
import { outputTokenTotal } from '../src/core/metrics/index.ts'
import { figureOrDash, formatShare, formatWithUnit } from './format-figures.ts'
import { SIMULATOR_SERVER_NAME } from '../src/core/contract/simulator-name.ts'

/** Which fact of the server's metrics a {@link ServerFact} is, so a report can pick some (the HTML shows two as cards). */
export type ServerFactKey =
  | 'server'
  | 'prefixCache'
  | 'waiting'
  | 'running'
  | 'kvCache'
  | 'preemptions'
  | 'serverTtft'
  | 'queueTime'
  | 'specDecode'
  | 'clientOverheadTtft'
  | 'generatedTokens'

/** One fact from the server's own metrics, as every report writes it. */
export interface ServerFact {
  key: ServerFactKey
  /** What the fact is, for a table's first column (`prefix cache`). */
  label: string
  /** The figure, for a table's second column (`62% hit (6200 of 10000 prompt tokens)`). */
  value: string
  /** Label and figure as one phrase, for one-line summaries (`prefix cache 62% hit (…)`). */
  text: string
}

/** How each server names itself. */
const DIALECT_NAMES: Record<ServerMetricsDialect, string> = {
  vllm: 'vLLM',
  sglang: 'SGLang',
  llamacpp: 'llama.cpp',
  trtllm: 'TensorRT-LLM',
}

/** A server's display name (`vLLM`), from the dialect of its metric names. */
export function serverDialectName(dialect: ServerMetricsDialect): string {
  // A result read from a file written by a newer version may name a dialect this one lacks.
  return DIALECT_NAMES[dialect] ?? dialect
}

function fact(key: ServerFactKey, label: string, value: string, text = `${label} ${value}`): ServerFact {
  return { key, label, value, text }
}

/**
 * A number from the metrics, or undefined when it is not one: results cross the worker boundary
 * and JSON files, where a non-finite figure (an unbounded bucket width) arrives as null.
 */
function finite(value: number | null | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

function gaugeValue(gauge: ServerGaugeSummary, format: (value: number) => string): string {
  return `mean ${format(gauge.mean)} / peak ${format(gauge.peak)}`
}

/**
 * The server's own metrics as short labelled facts, in report order: server, prefix-cache hit
 * rate, requests waiting and running, KV-cache usage, preemptions, the server's TTFT and queue
 * time, speculative decoding, client minus server TTFT, and generated tokens against the
 * client's count. Only facts the server gave; empty without metrics.
 *
 * The metrics' `notes` are left out on purpose: the run copies them into `result.warnings`,
 * which every report already prints.
 */
export function serverFacts(result: BenchmarkResult): ServerFact[] {
  const metrics = result.server?.metrics
  if (!metrics) return []
  const dialect = serverDialectName(metrics.dialect)
  // The simulator exposes vLLM's metric names: it is named for what it is, with the dialect it speaks.
  const name = result.environment.server.name === SIMULATOR_SERVER_NAME ? `simulator (${dialect} metrics)` : dialect
  const facts = [fact('server', 'server', name, name)]
  if (metrics.prefixCache) {
    const { hitRate, hitTokens, queriedTokens } = metrics.prefixCache
    facts.push(
      fact(
        'prefixCache',
        'prefix cache',
        `${formatShare(hitRate)} hit (${figureOrDash(hitTokens)} of ${figureOrDash(queriedTokens)} prompt tokens)`,
      ),
    )
  }
  if (metrics.requestsWaiting) facts.push(fact('waiting', 'waiting', gaugeValue(metrics.requestsWaiting, figureOrDash)))
  if (metrics.requestsRunning) facts.push(fact('running', 'running', gaugeValue(metrics.requestsRunning, figureOrDash)))
  if (metrics.kvCacheUsage) facts.push(fact('kvCache', 'KV cache', gaugeValue(metrics.kvCacheUsage, formatShare)))
  if (metrics.preemptions !== undefined)
    facts.push(fact('preemptions', 'preemptions', figureOrDash(metrics.preemptions)))
  if (metrics.ttftMs)
    facts.push(
      fact(
        'serverTtft',
        'server TTFT',
        `p50 ${formatWithUnit(metrics.ttftMs.p50, 'ms')} / p99 ${formatWithUnit(metrics.ttftMs.p99, 'ms')}`,
      ),
    )
  if (metrics.queueTimeMs)
    facts.push(fact('queueTime', 'queue time', `p99 ${formatWithUnit(metrics.queueTimeMs.p99, 'ms')}`))
  if (metrics.specDecode) {
    const { acceptanceRate, meanAcceptedLength } = metrics.specDecode
    facts.push(
      fact(
        'specDecode',
        'spec accept',
        `${formatShare(acceptanceRate)}, ${figureOrDash(meanAcceptedLength)} tokens/step`,
      ),
    )
  }
  const overhead = finite(metrics.clientOverheadTtftMs?.p50)
  if (overhead !== undefined) {
    const precision = finite(metrics.clientOverheadTtftMs?.p50PrecisionMs)
    // The server's p50 is known only to its bucket's width: the difference is no more precise than that.
    const bucket = precision === undefined ? '' : ` (±${formatWithUnit(precision, 'ms')} bucket)`
    facts.push(
      fact(
        'clientOverheadTtft',
        'client − server TTFT',
        `p50 ${overhead >= 0 ? '+' : ''}${formatWithUnit(overhead, 'ms')}${bucket}`,
      ),
    )
  }
  if (metrics.generatedTokens !== undefined) {
    const { outputTokens } = result.metrics
    const client = outputTokenTotal(outputTokens)
    // Without usage the client estimates its count from chunks, so a gap then is the estimate's.
    const counted = result.streaming.tokenCountEstimated ? 'client estimated' : 'client counted'
    // One host's slice of a segmented run: the shared server's counter holds every host's tokens.
    const hosts = result.segment !== undefined && result.segment.count > 1 ? result.segment.count : undefined
    const against =
      hosts === undefined
        ? `${counted} ${figureOrDash(client)}`
        : `all ${hosts} segments; this host's segment ${result.segment?.index}, ${counted} ${figureOrDash(client)}`
    facts.push(
      fact('generatedTokens', 'server generated', `${figureOrDash(metrics.generatedTokens)} tokens (${against})`),
    )
  }
  return facts
}

/** The one line saying why the server gave no metrics, when it gave none; undefined otherwise. */
export function serverMetricsNote(result: BenchmarkResult): string | undefined {
  return result.server?.metrics ? undefined : result.server?.note
}

/** The facts as one line (`vLLM · prefix cache 62% hit (…) · …`); undefined without metrics. */
export function serverFactsLine(facts: readonly ServerFact[]): string | undefined {
  return facts.length > 0 ? facts.map((entry) => entry.text).join(' · ') : undefined
}
