import { isRecord } from './is-record.ts'
import type { BenchmarkResult } from './result.ts'

/** Result schema versions this version reads: 1 lacks only `server`, which is optional. */
const READABLE_SCHEMA_VERSIONS: readonly unknown[] = [1, 2]

/** True when `value` has the shape of a `BenchmarkResult` (schema version 1 or 2): task meta and JSON files are untyped. */
export function isBenchmarkResult(value: unknown): value is BenchmarkResult {
  return (
    isRecord(value) &&
    READABLE_SCHEMA_VERSIONS.includes(value.schemaVersion) &&
    isRecord(value.metrics) &&
    isRecord(value.throughput) &&
    isRecord(value.counts)
  )
}
