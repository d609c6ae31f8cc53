import type { SimulatorHistogramSnapshot } from './types.ts'

/**
 * Prometheus text exposition format 0.0.4, written the way Python's prometheus_client (which
 * vLLM serves `/metrics` with) writes it, so a scraper that works on one works on the other:
 * `# HELP` then `# TYPE` per family, labels sorted by name, numbers as Python floats (`1.0`,
 * `1e-05`, `1.234567e+06`).
 */

/** The `content-type` of a text exposition. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

/** Label name to value. */
export type PrometheusLabels = Readonly<Record<string, string>>

/** Python's `repr(float)`: shortest round-trip digits, positional for exponents −4..15. */
function pythonFloatRepr(value: number): string {
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0'
  const sign = value < 0 ? '-' : ''
  // toExponential() without an argument gives the shortest digits that round-trip, like repr.
  const [significand = '0', exponentText = '0'] = Math.abs(value).toExponential().split('e')
  const digits = significand.replace('.', '')
  const exponent = Number(exponentText)
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`
    const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0')
    return `${sign}${whole}.${digits.slice(exponent + 1) || '0'}`
  }
  const mantissa = digits.length > 1 ? `${digits[0] ?? ''}.${digits.slice(1)}` : digits
  const magnitude = String(Math.abs(exponent)).padStart(2, '0')
  return `${sign}${mantissa}e${exponent < 0 ? '-' : '+'}${magnitude}`
}

/** A sample value or `le` bound as prometheus_client's `floatToGoString` writes it. */
export function formatPrometheusNumber(value: number): string {
  if (value === Infinity) return '+Inf'
  if (value === -Infinity) return '-Inf'
  if (Number.isNaN(value)) return 'NaN'
  const repr = pythonFloatRepr(value)
  const dot = repr.indexOf('.')
  // Go switches to exponents sooner than Python; prometheus_client follows Go for large positives.
  if (value > 0 && dot > 6) {
    const mantissa = `${repr[0] ?? ''}.${repr.slice(1, dot)}${repr.slice(dot + 1)}`.replace(/[0.]+$/u, '')
    return `${mantissa}e+0${dot - 1}`
  }
  return repr
}

function escapeLabelValue(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('\n', '\\n').replaceAll('"', '\\"')
}

function escapeHelp(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n')
}

/** `{a="x",b="y"}`: labels sorted by name, values escaped; empty without labels. Render once, reuse per scrape. */
export function labelText(labels: PrometheusLabels): string {
  const keys = Object.keys(labels).sort()
  const text = keys.map((key) => `${key}="${escapeLabelValue(labels[key] ?? '')}"`).join(',')
  return text ? `{${text}}` : ''
}

/** One sample line: `name{labels} value`, with the labels already rendered by {@link labelText}. */
export function sampleLine(name: string, labels: string, value: number): string {
  return `${name}${labels} ${formatPrometheusNumber(value)}\n`
}

/** The `# HELP` and `# TYPE` lines that open a family (a counter's name ends in `_total`). */
export function familyHeader(name: string, type: 'counter' | 'gauge' | 'histogram', help: string): string {
  return `# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} ${type}\n`
}

/** The rendered labels of each bucket line of a histogram, `+Inf` last (`labels` plus `le`). */
export function bucketLabelTexts(labels: PrometheusLabels, boundaries: readonly number[]): string[] {
  return [
    ...boundaries.map((bound) => labelText({ ...labels, le: formatPrometheusNumber(bound) })),
    labelText({ ...labels, le: '+Inf' }),
  ]
}

/**
 * A histogram's sample lines: cumulative buckets up to `+Inf`, then `_count` and `_sum`.
 * @param bucketLabels from {@link bucketLabelTexts} for the histogram's boundaries.
 * @param labels the histogram's labels rendered by {@link labelText}.
 */
export function histogramLines(
  name: string,
  bucketLabels: readonly string[],
  labels: string,
  histogram: SimulatorHistogramSnapshot,
): string {
  let text = ''
  histogram.cumulativeCounts.forEach((count, i) => {
    text += sampleLine(`${name}_bucket`, bucketLabels[i] ?? '', count)
  })
  text += sampleLine(`${name}_bucket`, bucketLabels[histogram.cumulativeCounts.length] ?? '', histogram.count)
  text += sampleLine(`${name}_count`, labels, histogram.count)
  text += sampleLine(`${name}_sum`, labels, histogram.sum)
  return text
}
