import type { ServerMetrics } from '../../src/core/contract/server-metrics.ts'

/** A vLLM `ServerMetrics` with the scrape facts filled in and no figures: a test adds the figures it asserts on. */
export function serverMetricsOf(figures: Partial<ServerMetrics>): ServerMetrics {
  return {
    dialect: 'vllm',
    url: 'http://127.0.0.1:8000/metrics',
    intervalMs: 1000,
    scrapes: 10,
    failedScrapes: 0,
    scrapeMeanMs: 2,
    windowMs: 9000,
    series: { t: [], requestsRunning: [], requestsWaiting: [], kvCacheUsage: [] },
    notes: [],
    ...figures,
  }
}
