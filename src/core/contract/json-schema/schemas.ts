import benchmarkResult from './benchmark-result.schema.json' with { type: 'json' }
import report from './report.schema.json' with { type: 'json' }
import type { JsonSchema } from './validate-json-schema.ts'

/** JSON Schema of `BenchmarkResult` (schemaVersion 2; readers accept 1). */
export const BENCHMARK_RESULT_SCHEMA: JsonSchema = benchmarkResult

/** JSON Schema of the JSON reporter's file (reportVersion 1); its results refer to {@link BENCHMARK_RESULT_SCHEMA}. */
export const REPORT_SCHEMA: JsonSchema = report

/** `$id` of {@link BENCHMARK_RESULT_SCHEMA}. */
export const BENCHMARK_RESULT_SCHEMA_ID = benchmarkResult.$id

/** `$id` of {@link REPORT_SCHEMA}. */
export const REPORT_SCHEMA_ID = report.$id
