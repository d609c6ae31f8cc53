export { counterbalancedOrder } from './paired-order.ts'
export type { PairedCheck, PairLimits, PairRatio } from './paired-verdict.ts'
export { judgePairedGate, nextPair } from './paired-verdict.ts'
export { lookConfidence } from './sequential-boundary.ts'
