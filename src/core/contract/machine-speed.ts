import type { SelfCheck } from './result.ts'

/** A machine this much slower than when the baseline was recorded may make an unchanged server fail. */
export const CPU_SPEED_TOLERANCE = 0.15

/**
 * The machine's speed now against the baseline's (their CPU calibrations), as a disturbance when it
 * is more than {@link CPU_SPEED_TOLERANCE} slower; undefined otherwise or when either side lacks one.
 */
export function machineSpeedChange(
  baseline: SelfCheck | undefined,
  current: SelfCheck | undefined,
): string | undefined {
  const before = baseline?.cpuCalibrationMs
  const now = current?.cpuCalibrationMs
  if (before === undefined || now === undefined || !(before > 0)) return undefined
  const ratio = now / before
  // Only a slower machine can make an unchanged server look slower; on a faster one a fail stands
  // (on llama-server a 13 % faster host had turned -ub 1, E2E p50 1.31x, inconclusive).
  if (ratio - 1 <= CPU_SPEED_TOLERANCE) return undefined
  return `this machine ran ${((ratio - 1) * 100).toFixed(0)} % slower than when the baseline was recorded (a fixed CPU loop took ${now.toFixed(1)} ms, against ${before.toFixed(1)} ms when it was recorded)`
}
