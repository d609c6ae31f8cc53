/**
 * The test runner the plugin installs for `vitest bench` on Vitest 4 (see `llmBench`).
 *
 * Vitest 4's benchmark mode runs files with its benchmark runner, which runs only Vitest's own
 * `bench()` blocks (tinybench), never `test()`, and no `describe`-level hooks: `bench.llm` blocks,
 * which are tests, were skipped and the run passed having measured nothing. This runner is Vitest's
 * own test runner (hooks, timeouts, retries, task meta, per-test failures and exit code as under
 * `vitest run`, and as Vitest 5 runs bench files), and hands each file that holds only Vitest's
 * own `bench()` blocks to Vitest's benchmark runner, so those run and report as before. A file that
 * mixes both fails with what to do: under Vitest 4 one runner cannot run both in one file.
 *
 * Not used on Vitest 5, whose `vitest bench` runs tests with the test runner already.
 */
import * as vitestApi from 'vitest'
import type { RunnerTask as Task, RunnerTestFile as File, RunnerTestSuite as Suite } from 'vitest'
import { VITEST4_RUNNER_MARK } from './vitest-support.ts'

/** Vitest 4's benchmark runner, as its `vitest` entry exports it (Vitest 5 has none). */
interface BenchmarkRunnerPrototype {
  importTinybench(this: unknown): Promise<unknown>
  runSuite(this: unknown, suite: Suite): Promise<void>
}

function benchmarkRunner(): BenchmarkRunnerPrototype {
  const runner = (vitestApi as unknown as { BenchmarkRunner?: { prototype: BenchmarkRunnerPrototype } }).BenchmarkRunner
  if (!runner)
    throw new Error(
      'vitest-llm-bench: the Vitest 4 bench runner was loaded on a Vitest without a benchmark runner; it is meant for Vitest 4.1 only.',
    )
  return runner.prototype
}

function tasksOf(suite: Suite): Task[] {
  return suite.tasks.flatMap((task) => (task.type === 'suite' ? tasksOf(task) : [task]))
}

/** Whether a task is one of Vitest's own `bench()` blocks. */
const isVitestBench = (task: Task): boolean => (task.meta as { benchmark?: boolean } | undefined)?.benchmark === true

export default class LlmBenchVitest4Runner extends vitestApi.TestRunner {
  /** The file now running holds only Vitest `bench()` blocks: Vitest's benchmark runner runs it. */
  #vitestBenchFile = false

  constructor(...args: ConstructorParameters<typeof vitestApi.TestRunner>) {
    super(...args)
    ;(globalThis as Record<symbol, unknown>)[VITEST4_RUNNER_MARK] = true
  }

  /** Used by Vitest's benchmark runner, which runs with this runner as `this`. */
  importTinybench(): Promise<unknown> {
    return benchmarkRunner().importTinybench.call(this)
  }

  override async onBeforeRunSuite(suite: Suite): Promise<void> {
    if ((suite as File).filepath !== undefined && suite.file === suite) {
      const tasks = tasksOf(suite)
      const benches = tasks.filter(isVitestBench).length
      const tests = tasks.length - benches
      this.#vitestBenchFile = benches > 0 && tests === 0
      if (benches > 0 && tests > 0) {
        // Failed before it runs: Vitest then marks its tasks skipped and reports this error on the file.
        suite.result = {
          state: 'fail',
          errors: [
            {
              name: 'LlmBenchError',
              message:
                `${suite.name} holds both Vitest bench() blocks and tests (bench.llm): Vitest 4's bench mode cannot run both in one file. ` +
                'Move the bench() blocks into a file of their own (or upgrade to Vitest 5, which runs both).',
              stack: '',
            },
          ],
        }
      }
    }
    await super.onBeforeRunSuite(suite)
  }

  /**
   * Read by Vitest for every suite it runs: a file of Vitest `bench()` blocks only is handed, whole,
   * to Vitest's benchmark runner; for any other file Vitest runs the children itself, as in test mode.
   */
  get runSuite(): ((suite: Suite) => Promise<void>) | undefined {
    return this.#vitestBenchFile ? (suite) => benchmarkRunner().runSuite.call(this, suite) : undefined
  }
}
