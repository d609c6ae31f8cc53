import { toCsv } from './csv.ts'
import { DEFAULT_REPORT_DIR, LlmFileReporter, type CollectedReport } from './file-reporter.ts'

/** Options of {@link LlmCsvReporter}. */
export interface LlmCsvReporterOptions {
  /** CSV file, relative to the Vitest root. Default `llm-bench-report/results.csv`. */
  outputFile?: string
}

/** Writes one CSV row per bench with its headline figures, configuration and environment. */
export class LlmCsvReporter extends LlmFileReporter<LlmCsvReporterOptions> {
  protected async write({ entries }: CollectedReport): Promise<void> {
    await this.writeReport(
      'LLM bench CSV',
      this.options.outputFile ?? `${DEFAULT_REPORT_DIR}/results.csv`,
      toCsv(entries),
    )
  }
}
