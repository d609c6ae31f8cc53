/**
 * The contract of vitest-llm-bench (see DESIGN.md). Other tools read these shapes: change a name
 * only together with a `schemaVersion` bump.
 *
 * Units: every time is in milliseconds on one monotonic clock (`performance.now()`), every
 * length in tokens, every rate per second.
 *
 * Every published type in one import (this entry's `export type *`, and scripts that read results), split
 * by what it describes: options.ts and workload-options.ts (what a run is asked to do), request-record.ts
 * (one request), result.ts and server-metrics.ts (what it returns); the API kinds are in api-kinds.ts.
 * Code inside the package imports the module that defines a type.
 */

export type { ApiKind, GenerationApi, InputsApi } from './api-kinds.ts'
export type * from './options.ts'
export type * from './workload-options.ts'
export type * from './request-record.ts'
export type * from './result.ts'
export type * from './server-metrics.ts'
