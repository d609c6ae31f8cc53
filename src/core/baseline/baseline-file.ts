import { BaselineFileError } from '../contract/errors.ts'
import type { BaselineEntry } from './baseline-entry.ts'
import { SERVER_CONTEXT_FIELDS } from './server-context.ts'
import { GATEABLE_LATENCIES, GATEABLE_THROUGHPUTS, METRIC_CATALOG } from '../contract/metric-catalog.ts'
import { formatStableJson } from './stable-json.ts'
import { describeJsonError } from '../platform/runtime-json.ts'

/** Version of the baseline file format this code reads and writes. */
export const BASELINE_SCHEMA_VERSION = 1

/** A baseline file: one per bench file, entries keyed by bench name. */
export interface BaselineFile {
  schemaVersion: typeof BASELINE_SCHEMA_VERSION
  entries: Record<string, BaselineEntry>
}

/** The file's text: sorted keys, two-space indentation, trailing newline (see `formatStableJson`). */
export function formatBaselineFile(file: BaselineFile): string {
  return formatStableJson(file)
}

type Json = Record<string, unknown>

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** Checks the shape member by member so a hand edit gets an error naming the member, not a crash later. */
class ShapeChecker {
  readonly path: string
  constructor(path: string) {
    this.path = path
  }
  fail(where: string, problem: string): never {
    throw new BaselineFileError(this.path, `${where} ${problem}`)
  }
  object(value: unknown, where: string): Json {
    if (!isObject(value)) this.fail(where, `must be an object, found ${describe(value)}`)
    return value
  }
  number(parent: Json, key: string, where: string): void {
    const value = parent[key]
    if (typeof value !== 'number' || !Number.isFinite(value))
      this.fail(`${where}.${key}`, `must be a number, found ${describe(value)}`)
  }
  optionalNumber(parent: Json, key: string, where: string): void {
    if (parent[key] !== undefined) this.number(parent, key, where)
  }
  string(parent: Json, key: string, where: string): void {
    if (typeof parent[key] !== 'string')
      this.fail(`${where}.${key}`, `must be a string, found ${describe(parent[key])}`)
  }
  optionalString(parent: Json, key: string, where: string): void {
    if (parent[key] !== undefined) this.string(parent, key, where)
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'string'
    ? `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`
    : `${typeof value} ${JSON.stringify(value)}`
}

function checkEntry(check: ShapeChecker, value: unknown, where: string, nested = false): void {
  const entry = check.object(value, where)
  if (entry.otherMachines !== undefined) {
    if (nested)
      check.fail(`${where}.otherMachines`, 'is only allowed on the entry of the file, not inside otherMachines')
    if (!Array.isArray(entry.otherMachines))
      check.fail(`${where}.otherMachines`, `must be an array, found ${describe(entry.otherMachines)}`)
    entry.otherMachines.forEach((other: unknown, i) => checkEntry(check, other, `${where}.otherMachines[${i}]`, true))
  }
  check.string(entry, 'recordedAt', where)
  check.string(entry, 'configHash', where)
  if (entry.config !== undefined) check.object(entry.config, `${where}.config`)
  const fingerprint = check.object(entry.fingerprint, `${where}.fingerprint`)
  check.number(fingerprint, 'gpuCount', `${where}.fingerprint`)
  check.string(fingerprint, 'runtimeName', `${where}.fingerprint`)
  check.string(fingerprint, 'runtimeVersion', `${where}.fingerprint`)
  for (const key of ['gpuModel', 'driverVersion', 'serverName', 'serverVersion', 'model', 'cpuModel']) {
    check.optionalString(fingerprint, key, `${where}.fingerprint`)
  }
  const counts = check.object(entry.counts, `${where}.counts`)
  check.number(counts, 'completed', `${where}.counts`)
  check.number(counts, 'failed', `${where}.counts`)
  check.number(entry, 'durationMs', where)
  const metrics = check.object(entry.metrics, `${where}.metrics`)
  for (const metric of GATEABLE_LATENCIES) {
    // A latency reported only where measured (TTFO) is absent from entries of runs that could not measure it.
    if (metrics[metric] === undefined && METRIC_CATALOG[metric].reported === 'measured') continue
    const summary = check.object(metrics[metric], `${where}.metrics.${metric}`)
    for (const key of ['count', 'mean', 'stddev', 'p50', 'p90', 'p95', 'p99', 'p999'])
      check.number(summary, key, `${where}.metrics.${metric}`)
  }
  const throughput = check.object(entry.throughput, `${where}.throughput`)
  for (const metric of GATEABLE_THROUGHPUTS) {
    const figure = check.object(throughput[metric], `${where}.throughput.${metric}`)
    check.number(figure, 'value', `${where}.throughput.${metric}`)
    for (const key of ['relativeStdError', 'windows', 'batches'])
      check.optionalNumber(figure, key, `${where}.throughput.${metric}`)
  }
  const histograms = check.object(entry.histograms, `${where}.histograms`)
  for (const key of Object.keys(histograms)) check.string(histograms, key, `${where}.histograms`)
  if (entry.launch !== undefined) {
    const launch = check.object(entry.launch, `${where}.launch`)
    check.string(launch, 'command', `${where}.launch`)
    if (!Array.isArray(launch.args) || launch.args.some((arg) => typeof arg !== 'string'))
      check.fail(`${where}.launch.args`, `must be an array of strings, found ${describe(launch.args)}`)
    if (launch.env !== undefined) {
      const env = check.object(launch.env, `${where}.launch.env`)
      for (const key of Object.keys(env)) check.string(env, key, `${where}.launch.env`)
    }
  }
  if (entry.server !== undefined) {
    const server = check.object(entry.server, `${where}.server`)
    check.string(server, 'dialect', `${where}.server`)
    for (const key of SERVER_CONTEXT_FIELDS) check.optionalNumber(server, key, `${where}.server`)
  }
}

/**
 * Parses and checks a baseline file's text.
 *
 * @throws {BaselineFileError} naming `path` and the JSON parse error or the first member with a wrong shape.
 */
export function parseBaselineFile(text: string, path: string): BaselineFile {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (cause) {
    throw new BaselineFileError(path, `not valid JSON (${describeJsonError(text, cause)})`, { cause })
  }
  const check = new ShapeChecker(path)
  const root = check.object(data, 'the file')
  if (root.schemaVersion !== BASELINE_SCHEMA_VERSION) {
    if (typeof root.schemaVersion === 'number' && root.schemaVersion > BASELINE_SCHEMA_VERSION) {
      check.fail(
        'schemaVersion',
        `is ${root.schemaVersion}, newer than this version of vitest-llm-bench reads (${BASELINE_SCHEMA_VERSION}); upgrade vitest-llm-bench`,
      )
    }
    check.fail('schemaVersion', `must be ${BASELINE_SCHEMA_VERSION}, found ${describe(root.schemaVersion)}`)
  }
  const entries = check.object(root.entries, 'entries')
  for (const [name, entry] of Object.entries(entries)) checkEntry(check, entry, `entries[${JSON.stringify(name)}]`)
  return { schemaVersion: BASELINE_SCHEMA_VERSION, entries: entries as Record<string, BaselineEntry> }
}
