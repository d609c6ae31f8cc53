import type { BenchServer } from '../bench/bench-options.ts'

/**
 * Hands the plugin's server option to the global setup. Both run in Vitest's main process, but
 * the global setup is loaded as a separate module, so the value travels through a global.
 */
const KEY = Symbol.for('vitest-llm-bench.shared-server')

interface Holder {
  spec: BenchServer | undefined
}

const g = globalThis as { [KEY]?: Holder }
export const SHARED_SERVER: Holder = (g[KEY] ??= { spec: undefined })
