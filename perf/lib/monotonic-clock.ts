// The shared clock of the perf suite is the one the multi-core mode uses to line up threads.
export { clockOffsetMs as monotonicOffsetMs, monotonicNowMs } from '../../src/core/workers/monotonic-clock.ts'
