import { DEFAULT_REPORT_DIR, LlmFileReporter, type CollectedReport, type ReportFile } from './file-reporter.ts'
import { renderMarkdown } from './markdown.ts'

/** Options of {@link LlmMarkdownReporter}. */
export interface LlmMarkdownReporterOptions {
  /** Markdown file, relative to the Vitest root. Default `llm-bench-report/summary.md`; `false` writes none. */
  outputFile?: string | false
  /** Append the summary to `$GITHUB_STEP_SUMMARY` when that variable is set. Default true. */
  stepSummary?: boolean
  /**
   * Link to the HTML report. Default: in GitHub Actions, the run's page (where uploaded
   * artifacts are listed); elsewhere no link.
   */
  htmlReportUrl?: string
  /** Heading of the summary. Default `LLM benchmarks`. */
  title?: string
}

/** The GitHub Actions run page, when running there. */
export function githubRunUrl(env: Record<string, string | undefined> = process.env): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: run } = env
  return server && repository && run ? `${server}/${repository}/actions/runs/${run}` : undefined
}

/** Writes the pull-request summary (see `renderMarkdown`) to a file and to the GitHub step summary. */
export class LlmMarkdownReporter extends LlmFileReporter<LlmMarkdownReporterOptions> {
  protected outputFiles(): string[] {
    return this.options.outputFile === false ? [] : [this.options.outputFile ?? `${DEFAULT_REPORT_DIR}/summary.md`]
  }

  protected render({ entries, sweeps, unmeasured, interrupted }: CollectedReport): ReportFile[] {
    const runUrl = githubRunUrl()
    const link = this.options.htmlReportUrl
      ? { htmlReportUrl: this.options.htmlReportUrl }
      : runUrl
        ? { htmlReportUrl: runUrl, htmlReportLabel: 'HTML report (in this run’s artifacts)' }
        : {}
    const markdown = renderMarkdown(entries, {
      ...link,
      sweeps,
      unmeasured,
      ...(interrupted ? { interrupted } : {}),
      ...(this.options.title ? { title: this.options.title } : {}),
    })
    const files: ReportFile[] = this.outputFiles().map((path) => ({
      what: 'LLM bench Markdown summary',
      path,
      text: markdown,
    }))
    const stepSummary = process.env.GITHUB_STEP_SUMMARY
    // GitHub collects the file after the step; other steps may have written to it, so append.
    if ((this.options.stepSummary ?? true) && stepSummary)
      files.push({
        what: 'GitHub step summary',
        path: stepSummary,
        text: `${markdown}\n`,
        append: true,
        announce: false,
      })
    return files
  }
}
