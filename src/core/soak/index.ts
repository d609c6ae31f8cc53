export { SoakRecorder } from './soak-recorder.ts'
export type { RecoveryProbes } from './soak-recovery.ts'
export { formatTrend, soakFigureLabel } from './soak-verdict.ts'
export { formatSoak } from './format-soak.ts'
