import { toGithubActionBenchmark } from './github-action-benchmark.ts'
import { DEFAULT_REPORT_DIR, LlmFileReporter, type CollectedReport, type ReportFile } from './file-reporter.ts'
import { toJsonReport, toRequestsJsonl } from './json-report.ts'

/** Options of {@link LlmJsonReporter}. Relative paths resolve against the Vitest root. */
export interface LlmJsonReporterOptions {
  /** The JSON report (every bench's full `BenchmarkResult`, verdict and SLO checks). Default `llm-bench-report/results.json`. */
  outputFile?: string
  /** Per-request records as JSONL, one request per line (only benches with `recordRequests: true` have them). Default: not written. */
  requestsFile?: string
  /** Keep per-request records inside the JSON report too. Default false. */
  includeRequests?: boolean
  /** Headline figures in github-action-benchmark's custom formats (`customSmallerIsBetter`, `customBiggerIsBetter`). Default: not written. */
  githubActionBenchmark?: {
    /** File for `tool: customSmallerIsBetter` (latencies, error rate, GPU memory, energy). */
    smallerIsBetterFile?: string
    /** File for `tool: customBiggerIsBetter` (throughputs). */
    biggerIsBetterFile?: string
  }
}

/**
 * Writes every bench's full result to one JSON file (format: `src/core/json-schema/report.schema.json`),
 * and on request the per-request records as JSONL and github-action-benchmark files.
 */
export class LlmJsonReporter extends LlmFileReporter<LlmJsonReporterOptions> {
  private get reportFile(): string {
    return this.options.outputFile ?? `${DEFAULT_REPORT_DIR}/results.json`
  }

  protected outputFiles(): string[] {
    const dashboard = this.options.githubActionBenchmark
    return [
      this.reportFile,
      this.options.requestsFile,
      dashboard?.smallerIsBetterFile,
      dashboard?.biggerIsBetterFile,
    ].filter((path): path is string => path !== undefined && path !== '')
  }

  protected render({ entries, sweeps, unmeasured, interrupted }: CollectedReport): ReportFile[] {
    const report = toJsonReport(entries, {
      includeRequests: this.options.includeRequests ?? false,
      sweeps,
      unmeasured,
      ...(interrupted ? { interrupted } : {}),
    })
    const files: ReportFile[] = [
      { what: 'LLM bench JSON report', path: this.reportFile, text: `${JSON.stringify(report, null, 2)}\n` },
    ]
    if (this.options.requestsFile)
      files.push({ what: 'LLM bench request records', path: this.options.requestsFile, text: toRequestsJsonl(entries) })
    const dashboard = this.options.githubActionBenchmark
    if (dashboard?.smallerIsBetterFile || dashboard?.biggerIsBetterFile) {
      const output = toGithubActionBenchmark(entries)
      const file = (path: string, figures: unknown): ReportFile => ({
        what: 'github-action-benchmark file',
        path,
        text: `${JSON.stringify(figures, null, 2)}\n`,
        announce: false,
      })
      if (dashboard.smallerIsBetterFile) files.push(file(dashboard.smallerIsBetterFile, output.smallerIsBetter))
      if (dashboard.biggerIsBetterFile) files.push(file(dashboard.biggerIsBetterFile, output.biggerIsBetter))
    }
    return files
  }
}
