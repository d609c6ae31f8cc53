import type { SoakResult, SoakWindow } from '../contract/result.ts'
import { formatTrend, soakFigureLabel } from './soak-verdict.ts'

const MARK = { pass: 'ok  ', fail: 'FAIL', inconclusive: '??  ' } as const

function ms(value: number | undefined): string {
  return value === undefined ? '-' : value >= 100 ? value.toFixed(0) : value.toFixed(1)
}

/** One window as a progress line of a long CI log: `soak window 3/12 (40-60 s): TTFT p50 … p99 …, 12.3 tok/s, 0 failed`. */
export function formatSoakWindow(window: SoakWindow, index: number, count: number): string {
  const span = `${(window.startMs / 1000).toFixed(0)}-${(window.endMs / 1000).toFixed(0)} s`
  const host = window.otherCores === undefined ? '' : `, other work ${window.otherCores.toFixed(2)} cores`
  return (
    `soak window ${index + 1}/${count} (${span}): ${window.completed} completed, ${window.failed} failed, ` +
    `TTFT p50 ${ms(window.ttftMs?.p50)} p99 ${ms(window.ttftMs?.p99)} ms, E2E p50 ${ms(window.e2eMs?.p50)} ms, ` +
    `${window.outputTokensPerSec.toFixed(1)} output tok/s${host}`
  )
}

/** The soak's verdict block: each limit with its trend and interval, the recovery, a changed machine. */
export function formatSoak(soak: SoakResult): string {
  const count = soak.windows.length
  const lines = [
    `Soak: ${soak.verdict.toUpperCase()} (${count} windows of ${(soak.windowMs / 1000).toFixed(0)} s, ` +
      "trends by Theil-Sen's slope with Sen's 95 % interval, per hour)",
  ]
  for (const check of soak.checks) lines.push(`  ${MARK[check.verdict]} ${check.reason}`)
  const judged = new Set(soak.checks.map((c) => c.figure))
  const others = soak.trends.filter((t) => !judged.has(t.figure))
  if (others.length > 0) {
    lines.push(`  trends not judged: ${others.map((t) => `${soakFigureLabel(t.figure)} ${formatTrend(t)}`).join('; ')}`)
  }
  const recovery = soak.recovery
  if (recovery) {
    if (recovery.verdict === 'fail')
      for (const failure of recovery.failures) lines.push(`  FAIL after the load: ${failure}`)
    else lines.push(`  ok   after the load: back within ${(recovery.withinMs / 1000).toFixed(0)} s`)
  }
  if (soak.machineChange) lines.push(`  note: ${soak.machineChange}`)
  return lines.join('\n')
}
