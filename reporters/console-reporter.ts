import type { TestArtifact } from 'vitest'
import type { Reporter, TestCase, TestModule, Vitest } from 'vitest/node'
import { isCI } from '../src/bench/ci.ts'
import { isBenchProgressArtifact, isBenchStepArtifact } from './progress-artifact.ts'
import { stylesFor } from './ansi.ts'
import { renderConsoleCompare, renderConsoleEntry, renderConsoleSweep } from './console-table.ts'
import { compareEntryOf } from './compare-entry.ts'
import { collectReport } from './file-reporter.ts'
import { formatProgressLine } from './progress-line.ts'
import { runCounts, runTallyLine } from './run-counts.ts'
import { reportEntryOf } from './report-entry.ts'
import { sweepReportOf } from './sweep-entry.ts'

/** Options of {@link LlmConsoleReporter}. */
export interface LlmConsoleReporterOptions {
  /** ANSI colours. Default: on when stdout is a terminal and `CI` is not set. */
  color?: boolean
  /** Progress lines while a bench runs (requests done, elapsed, recent TTFT p50, output tok/s). Default true. */
  progress?: boolean
  /**
   * Least time between two progress lines of one bench, milliseconds; a bench shorter than this
   * prints none. Default 5000 in a terminal, 30000 without one or under `CI` (a CI log grows by
   * one line per bench per half minute).
   */
  progressIntervalMs?: number
  /** Where text goes. Default: Vitest's logger (stdout). */
  write?: (text: string) => void
}

/** Default least time between two progress lines of one bench in a terminal, milliseconds. */
export const DEFAULT_PROGRESS_INTERVAL_MS = 5000

/** Default least time between two progress lines of one bench without a terminal (CI logs), milliseconds. */
export const DEFAULT_CI_PROGRESS_INTERVAL_MS = 30_000

function interactive(): boolean {
  return process.stdout.isTTY === true && !isCI()
}

/**
 * Prints a compact table per bench as soon as it finishes (p50/p99 TTFT, TPOT, ITL, E2E,
 * throughputs, errors, GPU memory and energy when sampled, baseline deltas coloured by verdict,
 * configuration, environment and the server's own metrics), and progress lines while it runs.
 * Plain text, and progress every 30 s instead of 5 s, when stdout is not a terminal or `CI` is set.
 *
 * Progress lines are whole lines, not one line rewritten in place: Vitest's default reporter
 * redraws its own status area at the bottom of the terminal and would garble a rewritten line.
 */
export class LlmConsoleReporter implements Reporter {
  /** Lets the plugin recognise the reporter (also across two copies of the package). */
  readonly llmBenchReporter = 'console'
  readonly color: boolean
  readonly progress: boolean
  readonly progressIntervalMs: number
  #write: ((text: string) => void) | undefined
  #vitest: Vitest | undefined
  readonly #lastProgressAt = new Map<string, number>()
  /** Benches whose last printed line said the server was silent. */
  readonly #silent = new Set<string>()

  constructor(options: LlmConsoleReporterOptions = {}) {
    this.color = options.color ?? interactive()
    this.progress = options.progress ?? true
    this.progressIntervalMs =
      options.progressIntervalMs ?? (interactive() ? DEFAULT_PROGRESS_INTERVAL_MS : DEFAULT_CI_PROGRESS_INTERVAL_MS)
    this.#write = options.write
  }

  onInit(vitest: Vitest): void {
    this.#vitest = vitest
  }

  #print(text: string): void {
    if (this.#write) this.#write(text)
    else if (this.#vitest) this.#vitest.logger.log(text)
    else process.stdout.write(`${text}\n`)
  }

  onTestRunStart(): void {
    this.#lastProgressAt.clear()
    this.#silent.clear()
  }

  onTestCaseArtifactRecord(testCase: TestCase, artifact: TestArtifact): void {
    if (this.progress && isBenchStepArtifact(artifact)) {
      // A longer run's steps (a compare's pairs): the first at once, then at most one per interval.
      const now = performance.now()
      const last = this.#lastProgressAt.get(testCase.id)
      if (last !== undefined && now - last < this.progressIntervalMs) return
      this.#lastProgressAt.set(testCase.id, now)
      this.#print(stylesFor(this.color).dim(`  … ${artifact.line}`))
      return
    }
    if (!this.progress || !isBenchProgressArtifact(artifact)) return
    const now = performance.now()
    const last = this.#lastProgressAt.get(testCase.id)
    // A server falling silent is printed at once; otherwise the first artifact only starts the
    // clock (short benches print no progress at all) and lines come at the interval.
    const newSilence = artifact.silentMs !== undefined && !this.#silent.has(testCase.id)
    if (!newSilence && artifact.stopping === undefined && artifact.soakWindow === undefined) {
      if (last === undefined) {
        this.#lastProgressAt.set(testCase.id, now)
        return
      }
      if (now - last < this.progressIntervalMs) return
    }
    this.#lastProgressAt.set(testCase.id, now)
    if (artifact.silentMs !== undefined) this.#silent.add(testCase.id)
    else this.#silent.delete(testCase.id)
    const styles = stylesFor(this.color)
    this.#print(styles.dim(`  … ${formatProgressLine(testCase.fullName, artifact)}`))
  }

  onTestCaseResult(testCase: TestCase): void {
    this.#lastProgressAt.delete(testCase.id)
    this.#silent.delete(testCase.id)
    const entry = reportEntryOf(testCase)
    if (entry) this.#print(`\n${renderConsoleEntry(entry, { color: this.color })}\n`)
    const sweep = sweepReportOf(testCase)?.summary
    if (sweep) this.#print(`\n${renderConsoleSweep(sweep, { color: this.color })}\n`)
    const compared = compareEntryOf(testCase)
    if (compared) this.#print(`\n${renderConsoleCompare(compared, { color: this.color })}\n`)
  }

  /** One tally line after the run, where it had LLM benches. */
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const { entries, sweeps, unmeasured, compares } = collectReport(testModules)
    if (entries.length === 0 && unmeasured.length === 0 && compares.length === 0) return
    this.#print(`\n${runTallyLine(runCounts(entries, sweeps, compares), unmeasured.length)}`)
  }
}

/** True when `reporter` is a vitest-llm-bench console reporter (any copy of the package). */
export function isLlmConsoleReporter(reporter: unknown): reporter is LlmConsoleReporter {
  return (
    typeof reporter === 'object' &&
    reporter !== null &&
    (reporter as { llmBenchReporter?: unknown }).llmBenchReporter === 'console'
  )
}
