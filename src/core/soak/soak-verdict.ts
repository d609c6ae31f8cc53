import type { SoakCheck, SoakFigure, SoakRecovery, SoakResult, SoakTrend, SoakWindow } from '../contract/result.ts'
import type { ResolvedSoak, SoakLimit } from './soak-options.ts'
import { theilSen } from './theil-sen.ts'

const MS_PER_HOUR = 3_600_000

/** Other processes' CPU use that moved this many cores between the soak's halves is a changed machine. */
export const MACHINE_CHANGE_CORES = 0.5
/** Hypervisor steal that moved this share between the halves is a changed machine. */
export const MACHINE_CHANGE_STEAL = 0.05

/** Every figure a soak follows, with how to read it from a window and its label for humans. */
const FIGURES: ReadonlyArray<{ figure: SoakFigure; label: string; read: (w: SoakWindow) => number | undefined }> = [
  { figure: 'ttftMs.p50', label: 'TTFT p50', read: (w) => w.ttftMs?.p50 },
  { figure: 'ttftMs.p99', label: 'TTFT p99', read: (w) => w.ttftMs?.p99 },
  { figure: 'tpotMs.p50', label: 'TPOT p50', read: (w) => w.tpotMs?.p50 },
  { figure: 'tpotMs.p99', label: 'TPOT p99', read: (w) => w.tpotMs?.p99 },
  { figure: 'e2eMs.p50', label: 'E2E p50', read: (w) => w.e2eMs?.p50 },
  { figure: 'e2eMs.p99', label: 'E2E p99', read: (w) => w.e2eMs?.p99 },
  {
    figure: 'outputTokensPerSec',
    label: 'output tok/s',
    read: (w) => (w.completed > 0 ? w.outputTokensPerSec : undefined),
  },
  { figure: 'gpuMemoryMiB', label: 'GPU memory', read: (w) => w.gpuMemoryMiB },
]

/** The label of a soak figure for humans (`TTFT p99`). */
export function soakFigureLabel(figure: SoakCheck['figure']): string {
  return figure === 'errors.rate' ? 'error rate' : (FIGURES.find((f) => f.figure === figure)?.label ?? figure)
}

/** The trend of each figure that at least two windows have: relative per hour, GPU memory in MiB per hour. */
export function soakTrends(windows: readonly SoakWindow[], level: number): SoakTrend[] {
  const trends: SoakTrend[] = []
  for (const { figure, read } of FIGURES) {
    const x: number[] = []
    const y: number[] = []
    for (const window of windows) {
      const value = read(window)
      if (value === undefined || !Number.isFinite(value)) continue
      x.push((window.startMs + window.endMs) / 2 / MS_PER_HOUR)
      y.push(value)
    }
    if (y.length < 2) continue
    const fit = theilSen(x, y, level)
    const absolute = figure === 'gpuMemoryMiB'
    // Relative to the median, so '+5%/h' reads the same for a 50 ms and a 5 s figure.
    const scale = absolute ? 1 : fit.median > 0 ? 100 / fit.median : Number.NaN
    if (!Number.isFinite(scale)) continue
    trends.push({
      figure,
      unit: absolute ? 'MiB/h' : '%/h',
      windows: y.length,
      median: fit.median,
      slopePerHour: fit.slope * scale,
      ciLow: fit.ciLow === null ? null : fit.ciLow * scale,
      ciHigh: fit.ciHigh === null ? null : fit.ciHigh * scale,
      level,
    })
  }
  return trends
}

function signed(value: number, unit: string): string {
  const digits = Math.abs(value) >= 100 ? 0 : 1
  return `${value >= 0 ? '+' : ''}${value.toFixed(digits)}${unit === '%/h' ? ' %/h' : ' MiB/h'}`
}

/** A trend with its interval, e.g. `+12.3 %/h [+8.1 %/h, +16.0 %/h]`. */
export function formatTrend(trend: SoakTrend): string {
  const interval =
    trend.ciLow === null || trend.ciHigh === null
      ? ' (no interval)'
      : ` [${signed(trend.ciLow, trend.unit)}, ${signed(trend.ciHigh, trend.unit)}]`
  return `${signed(trend.slopePerHour, trend.unit)}${interval}`
}

/** A limit against its trend: pass when the whole interval is within it, fail when the whole interval is beyond. */
function checkLimit(limit: SoakLimit, trend: SoakTrend | undefined): SoakCheck {
  const label = soakFigureLabel(limit.figure)
  const base = { figure: limit.figure, limit: limit.text }
  if (trend === undefined) {
    return { ...base, verdict: 'inconclusive', reason: `${label}: no window had the figure, so no trend` }
  }
  const shown = `${label} ${formatTrend(trend)} against ${limit.text}`
  if (trend.ciLow === null || trend.ciHigh === null) {
    return { ...base, verdict: 'inconclusive', reason: `${shown}: ${trend.windows} windows give no interval (5 do)` }
  }
  const rise = limit.bad === 'rise'
  const beyond = rise ? trend.ciLow > limit.perHour : trend.ciHigh < limit.perHour
  const within = rise ? trend.ciHigh <= limit.perHour : trend.ciLow >= limit.perHour
  if (beyond) return { ...base, verdict: 'fail', reason: `${shown}: the whole interval is beyond the limit` }
  if (within) return { ...base, verdict: 'pass', reason: `${shown}: the whole interval is within the limit` }
  return {
    ...base,
    verdict: 'inconclusive',
    reason: `${shown}: the interval spans the limit (a longer soak narrows it)`,
  }
}

function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/**
 * What changed on the machine between the soak's halves, one line; undefined when nothing did. The
 * medians of each half's windows, so one busy window (a cron job) is not a changed machine.
 */
export function soakMachineChange(windows: readonly SoakWindow[]): string | undefined {
  const half = Math.floor(windows.length / 2)
  const halves = [windows.slice(0, half), windows.slice(windows.length - half)]
  const of = (read: (w: SoakWindow) => number | undefined) =>
    halves.map((h) => median(h.map(read).filter((v): v is number => v !== undefined)))
  const [coresA, coresB] = of((w) => w.otherCores)
  const [stealA, stealB] = of((w) => w.stealShare)
  const changes: string[] = []
  if (coresA !== undefined && coresB !== undefined && Math.abs(coresB - coresA) >= MACHINE_CHANGE_CORES) {
    changes.push(
      `other processes used ${coresA.toFixed(2)} cores in the first half and ${coresB.toFixed(2)} in the second`,
    )
  }
  if (stealA !== undefined && stealB !== undefined && Math.abs(stealB - stealA) >= MACHINE_CHANGE_STEAL) {
    const pct = (share: number) => `${(share * 100).toFixed(1)} %`
    changes.push(`the hypervisor took ${pct(stealA)} of the CPU in the first half and ${pct(stealB)} in the second`)
  }
  return changes.length === 0 ? undefined : `the machine changed during the soak: ${changes.join('; ')}`
}

/** Figures the CPU of this machine moves: a changed machine makes their fail inconclusive. GPU memory is not one. */
function cpuBound(figure: SoakCheck['figure']): boolean {
  return figure !== 'gpuMemoryMiB' && figure !== 'errors.rate'
}

/**
 * Judges a soak: its trends against the limits, the error rate, the recovery after the load, and
 * whether the machine changed meanwhile (then a latency or throughput fail is inconclusive: the
 * trend may be the machine's, not the server's).
 */
export function judgeSoak(
  soak: ResolvedSoak,
  windows: SoakWindow[],
  requests: { total: number; failed: number },
  recovery: SoakRecovery | undefined,
): SoakResult {
  const trends = soakTrends(windows, soak.level)
  const machineChange = soakMachineChange(windows)
  const checks = soak.limits.map((limit) => {
    const check = checkLimit(
      limit,
      trends.find((t) => t.figure === limit.figure),
    )
    if (check.verdict !== 'fail' || machineChange === undefined || !cpuBound(check.figure)) return check
    return {
      ...check,
      verdict: 'inconclusive' as const,
      reason: `${check.reason}; not called a fail: ${machineChange}`,
    }
  })
  if (soak.maxErrorRate !== undefined) {
    const rate = requests.total === 0 ? 0 : requests.failed / requests.total
    const shown = `error rate ${(rate * 100).toFixed(2)} % (${requests.failed} of ${requests.total})`
    const limit = `${(soak.maxErrorRate * 100).toFixed(2)} %`
    checks.push({
      figure: 'errors.rate',
      limit: String(soak.maxErrorRate),
      verdict: rate > soak.maxErrorRate ? 'fail' : 'pass',
      reason: `${shown} ${rate > soak.maxErrorRate ? '>' : '<='} ${limit}`,
    })
  }
  const verdicts = [...checks.map((c) => c.verdict), ...(recovery ? [recovery.verdict] : [])]
  const verdict = verdicts.includes('fail') ? 'fail' : verdicts.includes('inconclusive') ? 'inconclusive' : 'pass'
  return {
    durationMs: soak.durationMs,
    windowMs: soak.windowMs,
    windows,
    trends,
    checks,
    ...(recovery ? { recovery } : {}),
    ...(machineChange ? { machineChange } : {}),
    verdict,
  }
}
