import { fileURLToPath } from 'node:url'
// From vitest/config, not vite: it carries the `test` config and `configureVitest` hook types.
import type { Plugin } from 'vitest/config'
import type { Vitest } from 'vitest/node'
import { parseRegressionPolicy, type RegressionPolicy } from '../core/baseline/index.ts'
import type { BenchServer } from './bench-options.ts'
import { isCI } from './ci.ts'
import { ObsoleteBaselineReporter } from './obsolete-baselines.ts'
import { PROVIDED_KEY, type UpdateMode } from './provided.ts'
import { SHARED_SERVER } from './shared-server.ts'
import { isLlmConsoleReporter, LlmConsoleReporter } from '../../reporters/console-reporter.ts'

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
  /**
   * Add `LlmConsoleReporter` beside Vitest's reporters (a table per bench, progress lines on a
   * terminal), unless the config lists one already. Default true.
   */
  reporters?: boolean
}

// The global setup runs from the built file when installed, from the source in this repository.
const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js'
const GLOBAL_SETUP = fileURLToPath(new URL(`./global-setup${ext}`, import.meta.url))

// One obsolete-baseline reporter per Vitest instance, however many projects use the plugin.
const obsoleteReporters = new WeakMap<Vitest, ObsoleteBaselineReporter>()

function obsoleteReporterOf(vitest: Vitest): ObsoleteBaselineReporter {
  let reporter = obsoleteReporters.get(vitest)
  if (!reporter) {
    reporter = new ObsoleteBaselineReporter(vitest)
    obsoleteReporters.set(vitest, reporter)
    // configureVitest runs before Vitest builds its reporters from the resolved config.
    vitest.config.reporters.push(reporter)
  }
  return reporter
}

/**
 * The Vitest plugin of vitest-llm-bench, for `vitest.config.ts`:
 * `plugins: [llmBench({ server: vllm({ model }) })]`. It starts the shared server once per run,
 * hands every bench file the update mode (`-u`), CI mode and baseline settings, and after the
 * run lists baseline entries of benches that no longer exist (removes them under `-u`).
 */
export function llmBench(options: LlmBenchPluginOptions = {}): Plugin {
  // A typo in the default policy fails when the config loads, not after the first bench ran.
  if (options.tolerance !== undefined) parseRegressionPolicy(options.tolerance, 'llmBench({ tolerance })')
  return {
    name: 'vitest-llm-bench',
    config() {
      return { test: { globalSetup: [GLOBAL_SETUP] } }
    },
    configureVitest({ vitest, project }) {
      // `-u` sets snapshotOptions.updateSnapshot to 'all' (config.update is not what vitest bench reads).
      const update = vitest.config.snapshotOptions.updateSnapshot as UpdateMode
      const reporters = vitest.config.reporters
      if (options.reporters !== false && !reporters.some(isLlmConsoleReporter)) reporters.push(new LlmConsoleReporter())
      // Benches send progress only when a reporter shows it.
      const progress = reporters.some((reporter) => isLlmConsoleReporter(reporter) && reporter.progress)
      project.provide(PROVIDED_KEY, {
        update,
        ...(progress ? { progress } : {}),
        ci: isCI(),
        ...(options.baselineDir ? { baselineDir: options.baselineDir } : {}),
        ...(options.tolerance ? { tolerance: options.tolerance as Record<string, unknown> } : {}),
      })
      // Under `vitest bench`, bench files run one at a time: two files measuring at once would load
      // each other's client and server, and each would see the other as a disturbed machine.
      if (vitest.config.mode === 'benchmark') (project.config as { maxWorkers: number }).maxWorkers = 1
      SHARED_SERVER.spec = options.server
      obsoleteReporterOf(vitest).addProject(project, options.baselineDir)
    },
  }
}
