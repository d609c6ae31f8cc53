import { describe, expect, test } from 'vitest'
import { renderMarkdown, toJsonReport } from '../../reporters/index.ts'
import { renderHtml } from '../../reporters/html/html-report.ts'
import { formatProgressLine } from '../../reporters/progress-line.ts'
import { renderConsoleEntry } from '../../reporters/console-table.ts'
import { isBenchProgressArtifact } from '../../reporters/progress-artifact.ts'
import { entryStatus, type ReportEntry } from '../../reporters/report-entry.ts'
import { forwardProgress } from '../../src/vitest/bench-progress.ts'
import { capitalized, stopText } from '../../src/core/contract/stop-text.ts'
import type { StopReport } from '../../src/core/contract/result.ts'
import { reportEntries } from '../helpers/reporter-fixtures.ts'
import {
  BENCHMARK_RESULT_SCHEMA,
  JsonSchemaValidator,
  REPORT_SCHEMA,
  REPORT_SCHEMA_ID,
} from '../../src/core/contract/json-schema/index.ts'

const STOPPED: StopReport = {
  atMs: 4_210,
  conditionSinceMs: 2_180,
  reason: 'error rate 100 % > 50 % (39 of 39 requests in the last 1 s)',
  inFlightCancelled: 4,
  expected: false,
}
const WARNING = `${capitalized(stopText(STOPPED))}.`

/** A bench that stopWhen stopped, as the judge leaves it: its run's warning, the baseline state, failed or passed. */
function stoppedEntry(expected: boolean): ReportEntry {
  const [steady] = reportEntries()
  const result = { ...steady!.result, stopped: { ...STOPPED, expected }, warnings: [WARNING] }
  return {
    ...steady!,
    result,
    verdict: undefined,
    baselineState: 'stopped early',
    state: expected ? 'passed' : 'failed',
    ...(expected ? { notes: [`not judged: ${stopText(result.stopped)} (stopWhen.expected): passes`] } : {}),
  }
}

describe('a load that stopWhen stopped, in every report', () => {
  test('the one line says when, why, since when and what was cancelled', () => {
    expect(WARNING).toBe(
      'The load was stopped early by stopWhen at 4.2 s: error rate 100 % > 50 % (39 of 39 requests in the last 1 s), ' +
        'held since 2.2 s; 4 requests in flight were cancelled.',
    )
    expect(stopText({ ...STOPPED, inFlightCancelled: 0 })).not.toContain('cancelled')
  })

  test('console, Markdown and HTML say it stopped and that the baseline was not judged', () => {
    const failed = stoppedEntry(false)
    expect(entryStatus(failed)).toBe('fail')
    const console = renderConsoleEntry(failed, { color: false })
    expect(console).toContain('baseline not judged (the load stopped early: stopWhen, below)')
    expect(console).toContain(`warning ${WARNING}`)
    const markdown = renderMarkdown([failed])
    expect(markdown).toContain(WARNING)
    expect(markdown).toContain('baseline stopped early')
    const html = renderHtml([failed], { generatedAt: '2026-12-01T00:00:00.000Z' })
    expect(html).toContain('stopWhen stopped the load early: neither compared with the baseline nor recorded as one')
    expect(html).toContain('error rate 100 % &gt; 50 %')
    // The JSON report (and the result in it) holds the stop and the baseline state as the schemas publish them.
    const report = JSON.parse(JSON.stringify(toJsonReport([failed], { generatedAt: '2026-12-01T00:00:00.000Z' })))
    expect(
      new JsonSchemaValidator([BENCHMARK_RESULT_SCHEMA, REPORT_SCHEMA]).validate(REPORT_SCHEMA_ID, report),
    ).toEqual([])
    expect(JSON.stringify(report)).toContain('"stopped early"')
    // An expected stop passes, with its note.
    const probe = stoppedEntry(true)
    expect(entryStatus(probe)).toBe('pass')
    expect(renderConsoleEntry(probe, { color: false })).toContain('(stopWhen.expected): passes')
  })

  test('the progress line says it at once, inside the interval and for the last request too', async ({ task }) => {
    const forwarder = forwardProgress(task, 60_000)
    forwarder.onProgress({ done: 1, total: 10, elapsedMs: 100, outputTokens: 8 })
    forwarder.onProgress({ done: 10, total: 10, elapsedMs: 4_210, outputTokens: 80, stopping: STOPPED.reason })
    await forwarder.settle()
    const sent = task.artifacts.filter(isBenchProgressArtifact)
    expect(sent.map((artifact) => artifact.stopping)).toEqual([undefined, STOPPED.reason])
    expect(formatProgressLine('chat', sent[1]!)).toBe(
      'chat: 10/10 requests · 4.2 s · TTFT p50 - · 19 output tok/s · ' +
        'stopping (stopWhen): error rate 100 % > 50 % (39 of 39 requests in the last 1 s)',
    )
  })
})
