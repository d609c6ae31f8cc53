import { fileURLToPath } from 'node:url'
import type { Plugin } from 'vite'
import type { RegressionPolicy } from '../core/baseline/index.ts'
import type { BenchServer } from './bench-options.ts'
import { isCI } from './ci.ts'
import { PROVIDED_KEY, type UpdateMode } from './provided.ts'
import { SHARED_SERVER } from './shared-server.ts'

/** Options of the {@link llmBench} Vitest plugin. */
export interface LlmBenchPluginOptions {
  /** Folder for baseline files, relative to each bench file. Default `__llm_baselines__`. */
  baselineDir?: string
  /**
   * One server shared by every bench file that names none (started once per run, stopped at the
   * end). Default: the built-in simulator.
   */
  server?: BenchServer
  /** Default baseline policy of benches that give none. */
  tolerance?: RegressionPolicy
}

// The global setup runs from the built file when installed, from the source in this repository.
const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js'
const GLOBAL_SETUP = fileURLToPath(new URL(`./global-setup${ext}`, import.meta.url))

/**
 * The Vitest plugin of vitest-llm-bench, for `vitest.config.ts`:
 * `plugins: [llmBench({ server: vllm({ model }) })]`. It starts the shared server once per run,
 * and hands every bench file the update mode (`-u`), CI mode and baseline settings.
 */
export function llmBench(options: LlmBenchPluginOptions = {}): Plugin {
  return {
    name: 'vitest-llm-bench',
    config() {
      return { test: { globalSetup: [GLOBAL_SETUP] } }
    },
    configureVitest({ vitest, project }) {
      // `-u` sets snapshotOptions.updateSnapshot to 'all' (config.update is not what vitest bench reads).
      const update = vitest.config.snapshotOptions.updateSnapshot as UpdateMode
      project.provide(PROVIDED_KEY, {
        update,
        ci: isCI(),
        ...(options.baselineDir ? { baselineDir: options.baselineDir } : {}),
        ...(options.tolerance ? { tolerance: options.tolerance as Record<string, unknown> } : {}),
      })
      SHARED_SERVER.spec = options.server
    },
  }
}
