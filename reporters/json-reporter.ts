import { toGithubActionBenchmark } from './github-action-benchmark.ts'
import { DEFAULT_REPORT_DIR, LlmFileReporter, type CollectedReport } from './file-reporter.ts'
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
  protected async write({ entries, sweeps, unmeasured }: CollectedReport): Promise<void> {
    const report = toJsonReport(entries, { includeRequests: this.options.includeRequests ?? false, sweeps, unmeasured })
    await this.writeReport(
      'LLM bench JSON report',
      this.options.outputFile ?? `${DEFAULT_REPORT_DIR}/results.json`,
      `${JSON.stringify(report, null, 2)}\n`,
    )
    if (this.options.requestsFile)
      await this.writeReport('LLM bench request records', this.options.requestsFile, toRequestsJsonl(entries))
    const dashboard = this.options.githubActionBenchmark
    if (dashboard?.smallerIsBetterFile || dashboard?.biggerIsBetterFile) {
      const output = toGithubActionBenchmark(entries)
      if (dashboard.smallerIsBetterFile)
        await this.writeText(
          dashboard.smallerIsBetterFile,
          `${JSON.stringify(output.smallerIsBetter, null, 2)}\n`,
          'replace',
          'github-action-benchmark file',
        )
      if (dashboard.biggerIsBetterFile)
        await this.writeText(
          dashboard.biggerIsBetterFile,
          `${JSON.stringify(output.biggerIsBetter, null, 2)}\n`,
          'replace',
          'github-action-benchmark file',
        )
    }
  }
}
