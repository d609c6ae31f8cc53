// First, for its side effect: a Node.js too old stops the config's import here, saying which it found.
import '../core/platform/supported-node.ts'
import { fileURLToPath } from 'node:url'
// From vitest/config, not vite: it carries the `test` config and `configureVitest` hook types.
import type { Plugin } from 'vitest/config'
import type { Vitest } from 'vitest/node'
import { parseRegressionPolicy, type RegressionPolicy } from '../core/verdict/index.ts'
import type { BenchServer } from '../bench/bench-options.ts'
import { isCI } from '../bench/ci.ts'
import { addSessionFromEnv } from '../bench/standalone-bench-llm.ts'
import { ObsoleteBaselineReporter } from './obsolete-baselines.ts'
import { SegmentMergeReporter } from './segment-merge-reporter.ts'
import { PROVIDED_KEY, type UpdateMode } from '../bench/provided.ts'
import { SHARED_SERVER } from './shared-server.ts'
import { watchParent } from '../core/server/index.ts'
import { isLlmConsoleReporter, LlmConsoleReporter } from '../../reporters/console-reporter.ts'
import { VITEST_LINE } from './supported-vitest.ts'
import { configError } from './vitest-support.ts'
import { updateArgumentError } from './update-argument.ts'

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
const VITEST4_BENCH_RUNNER = fileURLToPath(new URL(`./vitest4-bench-runner${ext}`, import.meta.url))

/** The reporter list Vitest builds its reporters from in this mode (Vitest 4's bench mode has its own). */
function reporterList(vitest: Vitest, line: 4 | 5): unknown[] {
  const config = vitest.config as unknown as {
    mode?: string
    reporters: unknown[]
    benchmark?: { reporters?: unknown[] }
  }
  if (line === 4 && config.mode === 'benchmark') {
    const bench = (config.benchmark ??= {})
    bench.reporters ??= ['default']
    // Reporter instances listed in test.reporters (LlmHtmlReporter, LlmJsonReporter, …) report bench
    // runs too, as on Vitest 5; names such as 'default' stay Vitest 4's benchmark reporters.
    for (const reporter of config.reporters) {
      if (
        typeof reporter === 'object' &&
        reporter !== null &&
        !Array.isArray(reporter) &&
        !bench.reporters.includes(reporter)
      )
        bench.reporters.push(reporter)
    }
    return bench.reporters
  }
  return config.reporters
}

/** Whether this run is `vitest bench` (Vitest 4's benchmark mode, Vitest 5's `benchmarkOnly`). */
function isBenchRun(vitest: Vitest): boolean {
  const config = vitest.config as unknown as { mode?: string; cliOptions?: { benchmarkOnly?: boolean } }
  return config.mode === 'benchmark' || config.cliOptions?.benchmarkOnly === true
}

/** Whether the command line asked for watch mode (`--watch`, `-w`, `vitest watch` or `vitest dev`). */
function watchAsked(argv: readonly string[]): boolean {
  return argv.some(
    (arg) => arg === '--watch' || arg === '-w' || arg === '--watch=true' || arg === 'watch' || arg === 'dev',
  )
}

// One obsolete-baseline reporter per Vitest instance, however many projects use the plugin.
const obsoleteReporters = new WeakMap<Vitest, ObsoleteBaselineReporter>()
// One merge of segmented runs per Vitest instance (`vitest --merge-reports`), with the first project's baseline folder.
const segmentReporters = new WeakMap<Vitest, { baselineDir: string | undefined }>()

function addSegmentMergeReporter(vitest: Vitest, line: 4 | 5, baselineDir: string | undefined): void {
  if (segmentReporters.has(vitest)) return
  const settings = { baselineDir }
  segmentReporters.set(vitest, settings)
  reporterList(vitest, line).push(new SegmentMergeReporter(vitest, () => settings.baselineDir))
}

function obsoleteReporterOf(vitest: Vitest, line: 4 | 5): ObsoleteBaselineReporter {
  let reporter = obsoleteReporters.get(vitest)
  if (!reporter) {
    reporter = new ObsoleteBaselineReporter(vitest)
    obsoleteReporters.set(vitest, reporter)
    // configureVitest runs before Vitest builds its reporters from the resolved config.
    reporterList(vitest, line).push(reporter)
  }
  return reporter
}

let orphanWatch = false

/**
 * A CI cancel, or `kill <pid>` to `npx`, ends npx but not the Vitest it started (npm does not pass
 * the signal on), which would measure on, write baselines and keep its servers. Vitest is then
 * adopted: seen within a second, it is stopped as by SIGTERM, and its workers, adopted in turn,
 * stop their servers (shutdown-hooks.ts).
 */
function stopWhenOrphaned(vitest: Vitest): void {
  if (orphanWatch) return
  orphanWatch = true
  const parent = process.ppid
  watchParent(() => {
    vitest.logger.error(
      `vitest-llm-bench: the process that started this run (pid ${parent}, e.g. npx) is gone; stopping the run and its servers.`,
    )
    process.kill(process.pid, 'SIGTERM')
  })
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
  // A Vitest the package does not support stopped the import of this module (supported-vitest.ts).
  const line = VITEST_LINE
  return {
    name: 'vitest-llm-bench',
    config() {
      return { test: { globalSetup: [GLOBAL_SETUP] } }
    },
    configureVitest({ vitest, project }) {
      const bench = isBenchRun(vitest)
      const updateError = bench
        ? updateArgumentError((vitest.config as { update?: unknown }).update, process.argv.slice(2))
        : undefined
      if (updateError) throw configError(updateError)
      if (bench) {
        stopWhenOrphaned(vitest)
        // A bench run measures for minutes: it ends when done unless watch mode was asked for.
        if (!watchAsked(process.argv.slice(2))) vitest.config.watch = false
        // Vitest 4 runs bench files with its benchmark runner, which skips tests (bench.llm): run
        // them with the runner that runs both (see vitest4-bench-runner.ts), unless the project has
        // its own, in which case bench.llm fails at collection and says why.
        const projectConfig = project.config as { runner?: string }
        if (line === 4 && projectConfig.runner === undefined) projectConfig.runner = VITEST4_BENCH_RUNNER
      }
      // `-u` sets snapshotOptions.updateSnapshot to 'all' (config.update is not what vitest bench reads).
      const update = vitest.config.snapshotOptions.updateSnapshot as UpdateMode
      const reporters = reporterList(vitest, line)
      if (options.reporters !== false && !reporters.some(isLlmConsoleReporter)) reporters.push(new LlmConsoleReporter())
      // Benches send progress only when a reporter shows it.
      const progress = reporters.some((reporter) => isLlmConsoleReporter(reporter) && reporter.progress)
      project.provide(PROVIDED_KEY, {
        update,
        ...(progress ? { progress } : {}),
        ci: isCI(),
        ...(addSessionFromEnv(process.env) ? { addSession: true } : {}),
        ...(options.baselineDir ? { baselineDir: options.baselineDir } : {}),
        ...(options.tolerance ? { tolerance: options.tolerance as Record<string, unknown> } : {}),
      })
      // Under `vitest bench`, bench files run one at a time: two files measuring at once would load
      // each other's client and server, and each would see the other as a disturbed machine.
      if (bench) (project.config as { maxWorkers: number }).maxWorkers = 1
      SHARED_SERVER.spec = options.server
      obsoleteReporterOf(vitest, line).addProject(project, options.baselineDir)
      addSegmentMergeReporter(vitest, line, options.baselineDir)
    },
  }
}
