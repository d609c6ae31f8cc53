import type { ServerGaugeSummary, ServerMetrics } from '../../contract/server-metrics.ts'

const standardError = (gauge: ServerGaugeSummary | undefined): number | undefined =>
  gauge === undefined || typeof gauge.stddev !== 'number' || gauge.samples < 2
    ? undefined
    : gauge.stddev / Math.sqrt(gauge.samples)

/** Unit of a server figure: a share is 0..1. */
export type ServerFigureUnit = 'ms' | 'share' | 'requests' | 'sequences' | 'tokens'

/**
 * The named figures read from `ServerMetrics`, one definition each: SLOs bound some of them, a
 * baseline keeps some as context. Counts over the window that grow with the run's length are
 * given per completed request where they are compared across runs.
 */
export const SERVER_FIGURES = {
  preemptions: { unit: 'sequences', read: (m) => m.preemptions },
  preemptionsPerRequest: {
    unit: 'sequences',
    read: (m, completed) => (m.preemptions === undefined || completed === 0 ? undefined : m.preemptions / completed),
  },
  prefixCacheHitRate: { unit: 'share', read: (m) => m.prefixCache?.hitRate },
  kvCacheUsagePeak: { unit: 'share', read: (m) => m.kvCacheUsage?.peak },
  requestsWaitingPeak: { unit: 'requests', read: (m) => m.requestsWaiting?.peak },
  requestsWaitingMean: { unit: 'requests', read: (m) => m.requestsWaiting?.mean },
  requestsRunningMean: { unit: 'requests', read: (m) => m.requestsRunning?.mean },
  /** Standard errors of those means (stddev / sqrt(scrapes)). */
  requestsWaitingMeanSe: { unit: 'requests', read: (m) => standardError(m.requestsWaiting) },
  requestsRunningMeanSe: { unit: 'requests', read: (m) => standardError(m.requestsRunning) },
  queueTimeP50Ms: { unit: 'ms', read: (m) => m.queueTimeMs?.p50 },
  queueTimeP99Ms: { unit: 'ms', read: (m) => m.queueTimeMs?.p99 },
  ttftP50Ms: { unit: 'ms', read: (m) => m.ttftMs?.p50 },
  ttftP99Ms: { unit: 'ms', read: (m) => m.ttftMs?.p99 },
  specAcceptanceRate: { unit: 'share', read: (m) => m.specDecode?.acceptanceRate },
  specMeanAcceptedLength: { unit: 'tokens', read: (m) => m.specDecode?.meanAcceptedLength },
} as const satisfies Record<
  string,
  { unit: ServerFigureUnit; read: (metrics: ServerMetrics, completedRequests: number) => number | undefined }
>

export type ServerFigure = keyof typeof SERVER_FIGURES

/** A figure's value, or undefined when the server does not give it (or it is not finite). */
export function readServerFigure(
  metrics: ServerMetrics,
  figure: ServerFigure,
  completedRequests: number,
): number | undefined {
  const value = SERVER_FIGURES[figure].read(metrics, completedRequests)
  return value !== undefined && Number.isFinite(value) ? value : undefined
}
