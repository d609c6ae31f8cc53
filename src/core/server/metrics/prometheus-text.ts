/**
 * A reader of the Prometheus text exposition format (0.0.4, and the OpenMetrics 1.0 text that
 * vLLM and SGLang also serve): sample lines grouped by sample name, with the `# TYPE` of each
 * family. Written here because the npm parser the issue suggested (`parse-prometheus-text-format`
 * 1.1.1) merges every labelled histogram series into one and drops its `_count` and `_sum`, and
 * vLLM labels every histogram (`model_name`, `engine`).
 */

/** Metric type as declared by `# TYPE`. */
export type PrometheusType =
  'counter' | 'gauge' | 'histogram' | 'gaugehistogram' | 'summary' | 'info' | 'stateset' | 'unknown' | 'untyped'

/** One sample line. */
export interface PrometheusSample {
  labels: Readonly<Record<string, string>>
  /** The value; `+Inf`, `-Inf` and `NaN` as the numbers they name. */
  value: number
}

/** A parsed exposition: samples by their full name (`vllm:prompt_tokens_total`, `…_bucket`). */
export interface PrometheusExposition {
  /** Every sample of one name, in the order served. Empty when the name is absent. */
  samples(name: string): readonly PrometheusSample[]
  /** Sample names present. */
  readonly names: ReadonlySet<string>
  /** The declared type of a family (`# TYPE name type`), by family name. */
  readonly types: ReadonlyMap<string, PrometheusType>
  /** Lines that were neither a comment nor a valid sample. */
  readonly invalidLines: number
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/
const TYPES: ReadonlySet<string> = new Set([
  'counter',
  'gauge',
  'histogram',
  'gaugehistogram',
  'summary',
  'info',
  'stateset',
  'unknown',
  'untyped',
])

function parseValue(text: string): number | undefined {
  if (text === '+Inf' || text === 'Inf') return Number.POSITIVE_INFINITY
  if (text === '-Inf') return Number.NEGATIVE_INFINITY
  if (text === 'NaN') return Number.NaN
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return undefined
  return Number(text)
}

/** Reads `{a="x",b="y"}` from `line` at `start` (the `{`); returns the labels and the index after `}`. */
function parseLabels(line: string, start: number): { labels: Record<string, string>; end: number } | undefined {
  const labels: Record<string, string> = {}
  let i = start + 1
  for (;;) {
    while (line[i] === ' ' || line[i] === ',') i++
    if (line[i] === '}') return { labels, end: i + 1 }
    const name = NAME.exec(line.slice(i))
    if (!name) return undefined
    i += name[0].length
    while (line[i] === ' ') i++
    if (line[i] !== '=') return undefined
    i++
    while (line[i] === ' ') i++
    if (line[i] !== '"') return undefined
    i++
    let value = ''
    for (;;) {
      const c = line[i]
      if (c === undefined) return undefined
      if (c === '"') break
      if (c === '\\') {
        const next = line[i + 1]
        value += next === 'n' ? '\n' : (next ?? '')
        i += 2
        continue
      }
      value += c
      i++
    }
    labels[name[0]] = value
    i++
  }
}

function parseSampleLine(line: string): { name: string; sample: PrometheusSample } | undefined {
  const name = NAME.exec(line)
  if (!name) return undefined
  let i = name[0].length
  let labels: Record<string, string> = {}
  if (line[i] === '{') {
    const parsed = parseLabels(line, i)
    if (!parsed) return undefined
    labels = parsed.labels
    i = parsed.end
  }
  // The value, then an optional timestamp, then an optional OpenMetrics exemplar (` # {…} v`).
  const rest = line.slice(i).trim().split(/\s+/)
  const value = rest[0] === undefined ? undefined : parseValue(rest[0])
  if (value === undefined) return undefined
  return { name: name[0], sample: { labels, value } }
}

/** Parses an exposition. Never throws: a line it cannot read is counted in `invalidLines` and skipped. */
export function parsePrometheusText(text: string): PrometheusExposition {
  const byName = new Map<string, PrometheusSample[]>()
  const types = new Map<string, PrometheusType>()
  let invalidLines = 0
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (line === '') continue
    if (line.startsWith('#')) {
      const type = /^#\s+TYPE\s+(\S+)\s+(\S+)/.exec(line)
      if (type && TYPES.has(type[2] as string)) types.set(type[1] as string, type[2] as PrometheusType)
      continue
    }
    const parsed = parseSampleLine(line)
    if (!parsed) {
      invalidLines++
      continue
    }
    let list = byName.get(parsed.name)
    if (!list) byName.set(parsed.name, (list = []))
    list.push(parsed.sample)
  }
  return {
    samples: (name) => byName.get(name) ?? [],
    names: new Set(byName.keys()),
    types,
    invalidLines,
  }
}
