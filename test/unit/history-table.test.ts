// `history` on the console and in its page: a disturbed point is marked on its row (what disturbed it is in the
// page, not wrapped over lines), columns carry their units, and the charts' x axis reads as commits' dates.
import { describe, expect, test } from 'vitest'
import { baselineEntryFrom } from '../../src/core/baseline/index.ts'
import { analyseHistory } from '../../src/core/history/history-analysis.ts'
import { pointOfEntry, type BenchHistory } from '../../src/core/history/history-point.ts'
import { historyTable } from '../../reporters/history-table.ts'
import { renderHistoryPage } from '../../reporters/html/history-page.ts'
import { lognormalSamples, makeResult, seededRandom } from '../helpers/baseline-fixtures.ts'

const DISTURBED = [
  'trial 1: other processes used 1.3 of 2 cores (busiest: node pid 13368 1.08, npm exec tsc --noEmit pid 13355 0.08)',
  'trial 2: other processes used 1.5 of 2 cores (busiest: node pid 13368 1.32, node pid 12599 0.09)',
  'and 3 more',
]

function history(): BenchHistory {
  const points = [1, 2, 3, 4, 5, 6].map((n) => {
    const result = makeResult({
      ttftMs: lognormalSamples(seededRandom(n), 200, 100, 0.2),
      tpotMs: lognormalSamples(seededRandom(n + 10), 200, 10, 0.1),
    })
    const entry = { ...baselineEntryFrom(result), ...(n % 2 === 0 ? { provisional: DISTURBED } : {}) }
    const date = `2026-11-0${n}T12:00:00Z`
    return pointOfEntry(entry, { date, commit: `abc${n}def`, subject: `Change ${n}` })
  })
  return { benchFile: 'benches/chat.bench.ts', name: 'chat 512/128', points }
}

describe('history, read', () => {
  test('one row per point: a disturbed one marked on its row, no process ids, a legend once', () => {
    const text = historyTable(analyseHistory(history()))
    const lines = text.split('\n')
    // Title, header, six rows, the legend of the mark, and "no change point".
    expect(lines).toHaveLength(10)
    expect(text).not.toContain('pid')
    expect(lines.filter((line) => /^\s+\d+!\s+2026-11-0[246]/.test(line))).toHaveLength(3)
    expect(text).toContain('!: measured on a disturbed machine')
  })

  test('every figure column names its unit', () => {
    const header = historyTable(analyseHistory(history())).split('\n')[1] ?? ''
    expect(header).toMatch(/TTFT p50 ms +TTFT p99 ms +TPOT p50 ms +E2E p50 ms +out tok\/s/)
  })

  test("the page's charts run over the commits' dates, and say what disturbed a point", () => {
    const page = renderHistoryPage([analyseHistory(history())], { method: 'test', repository: '/repo' })
    expect(page).toContain('>2026-11-03<')
    expect(page).toMatch(/class="axis-label"[^>]*>commit date</)
    expect(page).not.toMatch(/class="axis-label"[^>]*>point</)
    expect(page).toContain('busiest: node pid 13368 1.08')
  })
  test('a change point between two commits prints the bisect command that finds the commit', () => {
    // Six quiet points, TTFT twice as slow from the fourth on.
    const points = [1, 2, 3, 4, 5, 6].map((n) => {
      const result = makeResult({
        ttftMs: lognormalSamples(seededRandom(n), 400, n >= 4 ? 200 : 100, 0.05),
        tpotMs: lognormalSamples(seededRandom(n + 10), 400, 10, 0.05),
      })
      return pointOfEntry(baselineEntryFrom(result), {
        date: `2026-11-0${n}T12:00:00Z`,
        commit: `abc${n}def`,
        subject: `Change ${n}`,
      })
    })
    const text = historyTable(analyseHistory({ benchFile: 'benches/chat.bench.ts', name: 'chat', points }))
    expect(text).toContain('change point: TTFT p50')
    expect(text).toContain('which commit: npx vitest-llm-bench bisect --good abc3def --bad abc4def')
  })
})
