import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs'
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
import { compareEntryOf, type CompareEntry } from './compare-entry.ts'
import { claimedPath, claimReportFolders, releaseReportFolders } from './report-claim.ts'
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
  /** Comparisons (`bench.llm.compare`) that measured: the console prints their tables and counts them. */
  compares: CompareEntry[]
  /** Set when a signal stopped the run: the report holds only the benches that finished before it. */
  interrupted?: NodeJS.Signals
}

/** The report entries and sweep curves of a run's modules, in file and declaration order. */
export function collectReport(testModules: ReadonlyArray<Pick<TestModule, 'children'>>): CollectedReport {
  const collected: CollectedReport = { entries: [], curves: [], sweeps: [], unmeasured: [], compares: [] }
  // A merged blob report (`vitest --merge-reports`) lists a module once per blob that ran it.
  for (const module of new Set(testModules)) {
    for (const testCase of module.children.allTests()) {
      const like = testCase as unknown as TestCaseLike
      const entry = reportEntryOf(like)
      if (entry) collected.entries.push(entry)
      const unmeasured = unmeasuredBenchOf(like)
      if (unmeasured) collected.unmeasured.push(unmeasured)
      const compared = compareEntryOf(like)
      if (compared) collected.compares.push(compared)
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

/** A file a reporter writes at the end of a run. */
export interface ReportFile {
  /** What it is, for messages: `LLM bench JSON report`. */
  what: string
  /** Where, as configured: relative to the Vitest root, or absolute. */
  path: string
  text: string
  /** Append instead of replacing (the GitHub step summary, which other steps write too): never moved aside. */
  append?: boolean
  /** Say where it went. Default true. */
  announce?: boolean
}

/** Reporters of this process that write files: the one signal hook writes each's partial report. */
const interruptible = new Set<LlmFileReporter>()
/** Signals after which Vitest ends the process without `onTestRunEnd` (a SIGHUP it leaves to the default action). */
const INTERRUPT_SIGNALS = ['SIGINT', 'SIGTERM'] as const
/** How long after a signal the process is ended by it, should nothing else end it first, ms. */
const INTERRUPT_EXIT_MS = 200

function onInterrupt(signal: NodeJS.Signals): void {
  for (const reporter of interruptible) reporter.writeInterrupted(signal)
  interruptible.clear()
  for (const each of INTERRUPT_SIGNALS) process.off(each, onInterrupt)
  // The reports are written: the folders are free for the next run (the process may end by the signal, without `exit`).
  releaseReportFolders()
  // Vitest ends the process a millisecond after the signal; should nothing else end it, the signal's default action does.
  setTimeout(() => process.kill(process.pid, signal), INTERRUPT_EXIT_MS)
}

/**
 * Base of the reporters that write files at the end of a run: keeps the reporter's options,
 * collects the benches' entries from the finished modules and writes the files {@link render}
 * makes of them. Runs without any LLM bench write nothing, so a unit-test run sharing the config
 * does not overwrite the last benchmark report. Two runs in one project keep apart: the folders a
 * run writes to are claimed when it starts (see `claimReportFolders`). A run stopped by SIGINT or
 * SIGTERM (Ctrl-C, a CI cancel), which Vitest ends without `onTestRunEnd`, still writes the benches
 * that finished, marked as interrupted.
 */
export abstract class LlmFileReporter<Options extends object = object> implements Reporter {
  readonly options: Partial<Options>
  protected vitest: Vitest | undefined

  constructor(options: Partial<Options> = {}) {
    this.options = options
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest
    for (const line of claimReportFolders(this.outputFiles().map((path) => this.resolvePath(path)))) this.log(line)
    if (typeof process.on === 'function') {
      if (interruptible.size === 0) for (const signal of INTERRUPT_SIGNALS) process.on(signal, onInterrupt)
      interruptible.add(this)
    }
  }

  /** `path` resolved against the Vitest root (or the working directory). */
  protected resolvePath(path: string): string {
    return isAbsolute(path) ? path : resolve(this.vitest?.config.root ?? process.cwd(), path)
  }

  /** Tells the user where a report went (relative to the working directory). */
  private announce(what: string, path: string): void {
    this.log(`${what}: ${relative(process.cwd(), path) || path}`)
  }

  private log(line: string): void {
    if (this.vitest) this.vitest.logger.log(line)
    else process.stdout.write(`${line}\n`)
  }

  private where(file: ReportFile): string {
    const path = this.resolvePath(file.path)
    return file.append ? path : claimedPath(path)
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    interruptible.delete(this)
    const collected = collectReport(testModules)
    // A run without benches (unit tests sharing the config) keeps the last report; a run whose
    // benches all failed before measuring replaces it with one that says so.
    if (collected.entries.length === 0 && collected.unmeasured.length === 0) return
    try {
      for (const file of await this.renderFinal(collected)) {
        const target = this.where(file)
        try {
          await mkdir(dirname(target), { recursive: true })
          if (file.append) await appendFile(target, file.text)
          else await writeFile(target, file.text)
        } catch (error) {
          throw new ReportWriteError(file.what, target, error)
        }
        if (file.announce ?? true) this.announce(file.what, target)
      }
    } catch (error) {
      if (!(error instanceof ReportWriteError)) throw error
      this.failed(error)
    }
  }

  /**
   * Writes the report of the benches that finished before `signal` stopped the run, synchronously
   * (Vitest ends the process right after the signal's listeners return). Nothing when none finished.
   */
  writeInterrupted(signal: NodeJS.Signals): void {
    // Vitest's state holds every module of the run with the tasks as they are now (finished or not).
    const modules = this.vitest?.state.getTestModules() ?? []
    const collected = { ...collectReport(modules), interrupted: signal }
    if (collected.entries.length === 0 && collected.unmeasured.length === 0) return
    try {
      for (const file of this.render(collected)) {
        const target = this.where(file)
        try {
          mkdirSync(dirname(target), { recursive: true })
          if (file.append) appendFileSync(target, file.text)
          else writeFileSync(target, file.text)
        } catch (error) {
          throw new ReportWriteError(file.what, target, error)
        }
        if (file.announce ?? true)
          process.stderr.write(
            `${file.what} (interrupted by ${signal}): ${relative(process.cwd(), target) || target}\n`,
          )
      }
    } catch (error) {
      if (!(error instanceof ReportWriteError)) throw error
      this.failed(error)
    }
  }

  /** One line per reporter that could not write, and the run fails: nothing is lost silently. */
  private failed(error: ReportWriteError): void {
    if (this.vitest) this.vitest.logger.error(error.message)
    else process.stderr.write(`${error.message}\n`)
    process.exitCode = 1
  }

  /** The files this reporter replaces, as configured (their folders are claimed when the run starts). */
  protected abstract outputFiles(): string[]

  /** The files of a run's report: `entries` and `unmeasured` are never both empty. */
  protected abstract render(report: CollectedReport): ReportFile[]

  /** {@link render} at the end of a run, where reading more (baseline files) is possible. */
  protected renderFinal(report: CollectedReport): Promise<ReportFile[]> {
    return Promise.resolve(this.render(report))
  }
}
