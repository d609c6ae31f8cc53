import { toCsv } from './csv.ts'
import { DEFAULT_REPORT_DIR, LlmFileReporter, type CollectedReport, type ReportFile } from './file-reporter.ts'

/** Options of {@link LlmCsvReporter}. */
export interface LlmCsvReporterOptions {
  /** CSV file, relative to the Vitest root. Default `llm-bench-report/results.csv`. */
  outputFile?: string
}

/** Writes one CSV row per bench with its headline figures, configuration and environment. */
export class LlmCsvReporter extends LlmFileReporter<LlmCsvReporterOptions> {
  protected outputFiles(): string[] {
    return [this.options.outputFile ?? `${DEFAULT_REPORT_DIR}/results.csv`]
  }

  protected render({ entries }: CollectedReport): ReportFile[] {
    return [{ what: 'LLM bench CSV', path: this.outputFiles()[0]!, text: toCsv(entries) }]
  }
}
