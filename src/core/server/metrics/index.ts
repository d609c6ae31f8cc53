export { parsePrometheusText } from './prometheus-text.ts'
export { DIALECTS, detectDialect } from './server-metric-names.ts'
export { mergeServerSides } from './merge-server-metrics.ts'
export {
  bucketQuantile,
  SERVER_NOTE_PREFIX,
  summarizeServerMetrics,
  type ServerMetricsScrape,
} from './server-metrics-window.ts'
export { startMetricsScraper } from './metrics-scraper.ts'
export { ServerMetricsWatch } from './metrics-watch.ts'
export { validateServerMetricsOptions, resolveServerMetricsOptions } from './server-metrics-options.ts'
