import type { ResolvedLoad } from '../contract/options.ts'

/** A ramp from `from` to `to` over `durationMs`, then flat at `to`. */
export interface Ramp {
  from: number
  to: number
  durationMs: number
  curve: 'linear' | 'exponential'
}

/** The ramp of `load.rampUp` towards `target` (the rate or the concurrency), or undefined. */
export function rampOf(load: Pick<ResolvedLoad, 'rampUp'>, target: number): Ramp | undefined {
  const rampUp = load.rampUp
  if (!rampUp) return undefined
  return { from: rampUp.from, to: target, durationMs: rampUp.durationMs, curve: rampUp.curve }
}

/** The ramped value at `tMs` after the start. */
export function rampValueAt(ramp: Ramp, tMs: number): number {
  if (tMs >= ramp.durationMs) return ramp.to
  if (tMs <= 0) return ramp.from
  const progress = tMs / ramp.durationMs
  if (ramp.curve === 'exponential') return ramp.from * Math.pow(ramp.to / ramp.from, progress)
  return ramp.from + (ramp.to - ramp.from) * progress
}

/** The first time (ms) at which the ramp reaches `value`; undefined when it never does within the ramp. */
export function rampTimeOf(ramp: Ramp, value: number): number | undefined {
  const { from, to, durationMs } = ramp
  if (to === from) return undefined
  const low = Math.min(from, to)
  const high = Math.max(from, to)
  if (value < low || value > high) return undefined
  const progress =
    ramp.curve === 'exponential' ? Math.log(value / from) / Math.log(to / from) : (value - from) / (to - from)
  return progress * durationMs
}

/**
 * Operational time of a rate ramp: the expected number of arrivals in [0, tMs], with the rate in
 * requests per second. A Poisson (or gamma renewal) process with unit mean gaps in operational
 * time, mapped back through {@link arrivalTimeOf}, is the time-varying process at the ramped rate.
 */
export function expectedArrivals(ramp: Ramp | undefined, rate: number, tMs: number): number {
  if (!ramp) return (rate / 1000) * tMs
  const a = ramp.from / 1000
  const b = ramp.to / 1000
  const d = ramp.durationMs
  const within = Math.min(tMs, d)
  let sum: number
  if (a === b) sum = a * within
  else if (ramp.curve === 'exponential') {
    const lnq = Math.log(b / a)
    sum = ((a * d) / lnq) * (Math.exp((lnq * within) / d) - 1)
  } else sum = a * within + ((b - a) * within * within) / (2 * d)
  return tMs > d ? sum + b * (tMs - d) : sum
}

/** Inverse of {@link expectedArrivals}: the time (ms) by which `arrivals` are expected. */
export function arrivalTimeOf(ramp: Ramp | undefined, rate: number, arrivals: number): number {
  if (!ramp) return arrivals / (rate / 1000)
  const a = ramp.from / 1000
  const b = ramp.to / 1000
  const d = ramp.durationMs
  const atRampEnd = expectedArrivals(ramp, rate, d)
  if (arrivals >= atRampEnd) return d + (arrivals - atRampEnd) / b
  if (a === b) return arrivals / a
  if (ramp.curve === 'exponential') {
    const lnq = Math.log(b / a)
    return (d / lnq) * Math.log1p((arrivals * lnq) / (a * d))
  }
  // Solve k t^2 + a t - s = 0 with k = (b - a) / 2d in the form that stays accurate when k is tiny.
  const k = (b - a) / (2 * d)
  return (2 * arrivals) / (a + Math.sqrt(Math.max(0, a * a + 4 * k * arrivals)))
}
