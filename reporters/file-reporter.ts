import { appendFile, mkdir, writeFile } from 'node:fs/promises'
import { dirname, isAbsolute, relative, resolve } from 'node:path'
import type { Reporter, TestModule, Vitest } from 'vitest/node'
import type { CurveSpec } from './html/svg-chart.ts'
import {
  reportEntryOf,
  unmeasuredBenchOf,
  type ReportEntry,
  type TestCaseLike,
  type UnmeasuredBench,
} from './report-entry.ts'
import { sweepReportOf, type SweepSummary } from './sweep-entry.ts'

/** A report file that could not be written: the message names the report, the file, the reason and what to do. */
export class ReportWriteError extends Error {
  constructor(what: string, path: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause)
    super(
      `vitest-llm-bench: cannot write the ${what} to ${path}: ${reason}. Make that folder writable, or give the reporter another outputFile.`,
      { cause },
    )
    this.name = 'ReportWriteError'
  }
}

/** Folder the file reporters write to by default, relative to the Vitest root. */
export const DEFAULT_REPORT_DIR = 'llm-bench-report'

/** What a run's modules hold for reporters: bench entries (a sweep gives one per point), sweep curves and sweep summaries. */
export interface CollectedReport {
  entries: ReportEntry[]
  curves: CurveSpec[]
  /** Each sweep's headlines (knee, capacity, scenario), checks and table. */
  sweeps: SweepSummary[]
  /** Benches that started and failed before they had a result: reports say so instead of keeping an older run's. */
  unmeasured: UnmeasuredBench[]
}

/** The report entries and sweep curves of a run's modules, in file and declaration order. */
export function collectReport(testModules: ReadonlyArray<Pick<TestModule, 'children'>>): CollectedReport {
  const collected: CollectedReport = { entries: [], curves: [], sweeps: [], unmeasured: [] }
  for (const module of testModules) {
    for (const testCase of module.children.allTests()) {
      const like = testCase as unknown as TestCaseLike
      const entry = reportEntryOf(like)
      if (entry) collected.entries.push(entry)
      const unmeasured = unmeasuredBenchOf(like)
      if (unmeasured) collected.unmeasured.push(unmeasured)
      const sweep = sweepReportOf(like)
      if (sweep) {
        collected.entries.push(...sweep.entries)
        if (sweep.curve.points.length > 0) collected.curves.push(sweep.curve)
        if (sweep.summary) collected.sweeps.push(sweep.summary)
      }
    }
  }
  return collected
}

/**
 * Base of the reporters that write files at the end of a run: keeps the reporter's options,
 * collects the benches' entries from the finished modules and hands them to {@link write}. Runs
 * without any LLM bench write nothing, so a unit-test run sharing the config does not overwrite
 * the last benchmark report.
 */
export abstract class LlmFileReporter<Options extends object = object> implements Reporter {
  readonly options: Partial<Options>
  protected vitest: Vitest | undefined

  constructor(options: Partial<Options> = {}) {
    this.options = options
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest
  }

  /** `path` resolved against the Vitest root (or the working directory). */
  protected resolvePath(path: string): string {
    return isAbsolute(path) ? path : resolve(this.vitest?.config.root ?? process.cwd(), path)
  }

  /**
   * Writes `text` to `path` (resolved, parent folders created).
   *
   * @throws {ReportWriteError} naming the file, the reason and what to do.
   */
  protected async writeText(
    path: string,
    text: string,
    mode: 'replace' | 'append' = 'replace',
    what = 'report',
  ): Promise<string> {
    const target = this.resolvePath(path)
    try {
      await mkdir(dirname(target), { recursive: true })
      if (mode === 'append') await appendFile(target, text)
      else await writeFile(target, text)
    } catch (error) {
      throw new ReportWriteError(what, target, error)
    }
    return target
  }

  /** Writes `text` to `path` (as {@link writeText}) and says where it went. */
  protected async writeReport(what: string, path: string, text: string): Promise<void> {
    this.announce(what, await this.writeText(path, text, 'replace', what))
  }

  /** Tells the user where a report went (relative to the working directory). */
  protected announce(what: string, path: string): void {
    const line = `${what}: ${relative(process.cwd(), path) || path}`
    if (this.vitest) this.vitest.logger.log(line)
    else process.stdout.write(`${line}\n`)
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    const collected = collectReport(testModules)
    // A run without benches (unit tests sharing the config) keeps the last report; a run whose
    // benches all failed before measuring replaces it with one that says so.
    if (collected.entries.length === 0 && collected.unmeasured.length === 0) return
    try {
      await this.write(collected)
    } catch (error) {
      if (!(error instanceof ReportWriteError)) throw error
      // One line per reporter that could not write, and the run fails: nothing is lost silently.
      if (this.vitest) this.vitest.logger.error(error.message)
      else process.stderr.write(`${error.message}\n`)
      process.exitCode = 1
    }
  }

  /** Writes the report of a run: `entries` and `unmeasured` are never both empty. */
  protected abstract write(report: CollectedReport): Promise<void>
}
