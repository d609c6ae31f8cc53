import { BaselineStore, type BaselineEntry } from '../src/core/baseline/index.ts'
import { DEFAULT_REPORT_DIR, LlmFileReporter, type CollectedReport, type ReportFile } from './file-reporter.ts'
import { renderHtml } from './html/html-report.ts'
import type { ReportEntry } from './report-entry.ts'

/** Options of {@link LlmHtmlReporter}. */
export interface LlmHtmlReporterOptions {
  /** HTML file, relative to the Vitest root. Default `llm-bench-report/report.html`. */
  outputFile?: string
  /** Page title. Default `vitest-llm-bench report`. */
  title?: string
}

/**
 * The baseline entries the benches were compared with, read from their baseline files (only
 * benches whose state is `compare`: a baseline just written or updated is the run itself).
 * Unreadable files are skipped: the report then draws no baseline curve for those benches.
 */
export async function loadBaselines(entries: readonly ReportEntry[]): Promise<Map<ReportEntry, BaselineEntry>> {
  const stores = new Map<string, Promise<BaselineStore | undefined>>()
  const baselines = new Map<ReportEntry, BaselineEntry>()
  for (const entry of entries) {
    if (entry.baselineState !== 'compare' || !entry.baselinePath) continue
    let store = stores.get(entry.baselinePath)
    if (!store) {
      store = BaselineStore.open(entry.baselinePath, { updateMode: 'none', ci: true }).catch(() => undefined)
      stores.set(entry.baselinePath, store)
    }
    const lookup = (await store)?.get(entry.name)
    if (lookup?.state === 'found') baselines.set(entry, lookup.entry)
  }
  return baselines
}

/** Writes one self-contained HTML report with charts (see `renderHtml`). */
export class LlmHtmlReporter extends LlmFileReporter<LlmHtmlReporterOptions> {
  protected outputFiles(): string[] {
    return [this.options.outputFile ?? `${DEFAULT_REPORT_DIR}/report.html`]
  }

  /** Without the baselines' curves: an interrupted run writes at once, before any file could be read. */
  protected render(report: CollectedReport): ReportFile[] {
    return this.renderWith(report, new Map())
  }

  protected override async renderFinal(report: CollectedReport): Promise<ReportFile[]> {
    return this.renderWith(report, await loadBaselines(report.entries))
  }

  private renderWith(
    { entries, curves, sweeps, unmeasured, interrupted }: CollectedReport,
    baselines: Map<ReportEntry, BaselineEntry>,
  ): ReportFile[] {
    const html = renderHtml(entries, {
      baselines,
      curves,
      sweeps,
      unmeasured,
      ...(interrupted ? { interrupted } : {}),
      ...(this.options.title ? { title: this.options.title } : {}),
    })
    return [{ what: 'LLM bench HTML report', path: this.outputFiles()[0]!, text: html }]
  }
}
