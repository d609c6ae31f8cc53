import type { GpuSample, GpuStats } from '../contract/result.ts'

/** The measured phase on the monotonic clock, in milliseconds; infinite bounds take every sample. */
export interface TimeWindow {
  startAt: number
  endAt: number
}

/** What is known of a GPU apart from its samples. */
export interface GpuIdentity {
  index: number
  name: string
  uuid?: string | undefined
  memoryTotalMiB?: number | undefined
}

/** Figures measured outside the sample series. */
export interface GpuStatsExtras {
  /** Memory used before the load (one-shot query), MiB. */
  memoryBeforeMiB?: number | undefined
  /** Memory used after the load (one-shot query), MiB. */
  memoryAfterMiB?: number | undefined
  /** All output tokens of the measured phase, for joules per token. */
  outputTokens?: number | undefined
}

/**
 * Summarises one GPU's samples over the measured window. Means are plain means of the samples in
 * the window (samples are evenly spaced); a window too short to hold a sample uses the samples on
 * either side of it. Energy is integrated separately, see {@link integrateEnergyJ}.
 */
export function computeGpuStats(
  gpu: GpuIdentity,
  samples: readonly GpuSample[],
  window: TimeWindow,
  extras: GpuStatsExtras = {},
): GpuStats {
  const own = samples.filter((s) => s.index === gpu.index).sort((a, b) => a.t - b.t)
  let inWindow = own.filter((s) => s.t >= window.startAt && s.t <= window.endAt)
  if (inWindow.length === 0) {
    const before = own.filter((s) => s.t < window.startAt).at(-1)
    const after = own.find((s) => s.t > window.endAt)
    inWindow = [before, after].filter((s): s is GpuSample => s !== undefined)
  }
  const memory = defined(inWindow.map((s) => s.memoryUsedMiB))
  const power = defined(inWindow.map((s) => s.powerW))
  const utilization = defined(inWindow.map((s) => s.utilizationPct))
  const energyJ = integrateEnergyJ(own, window)
  const outputTokens = extras.outputTokens
  const stats: GpuStats = { index: gpu.index, name: gpu.name }
  if (gpu.uuid !== undefined) stats.uuid = gpu.uuid
  if (extras.memoryBeforeMiB !== undefined) stats.memoryBeforeMiB = extras.memoryBeforeMiB
  if (extras.memoryAfterMiB !== undefined) stats.memoryAfterMiB = extras.memoryAfterMiB
  if (memory.length > 0) {
    stats.memoryPeakMiB = Math.max(...memory)
    stats.memoryMeanMiB = mean(memory)
  }
  if (gpu.memoryTotalMiB !== undefined) stats.memoryTotalMiB = gpu.memoryTotalMiB
  if (utilization.length > 0) stats.utilizationMeanPct = mean(utilization)
  if (power.length > 0) {
    stats.powerMeanW = mean(power)
    stats.powerPeakW = Math.max(...power)
  }
  if (energyJ !== undefined) {
    stats.energyJ = energyJ
    if (outputTokens !== undefined && outputTokens > 0) stats.energyPerOutputTokenJ = energyJ / outputTokens
  }
  return stats
}

/**
 * Energy in joules: the trapezoidal integral of power (watts) over the window (milliseconds),
 * power being linear between consecutive samples that report it (an `[N/A]` sample is skipped, its
 * neighbours are joined). Where a sample lies outside the window on either side, power is
 * interpolated at the window edge, so a sampler running before and after the load covers the window
 * exactly; nothing is extrapolated beyond the first or last sample. Undefined when fewer than two
 * samples report power.
 */
export function integrateEnergyJ(samples: readonly GpuSample[], window: TimeWindow): number | undefined {
  const points = samples
    .filter((s): s is GpuSample & { powerW: number } => s.powerW !== undefined)
    .sort((a, b) => a.t - b.t)
  if (points.length < 2) return undefined
  let joules = 0
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!
    const b = points[i]!
    const lo = Math.max(a.t, window.startAt)
    const hi = Math.min(b.t, window.endAt)
    if (hi <= lo || b.t === a.t) continue
    const at = (t: number): number => a.powerW + ((b.powerW - a.powerW) * (t - a.t)) / (b.t - a.t)
    joules += ((at(lo) + at(hi)) / 2) * ((hi - lo) / 1000)
  }
  return joules
}

function defined(values: ReadonlyArray<number | undefined>): number[] {
  return values.filter((v): v is number => v !== undefined)
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length
}
