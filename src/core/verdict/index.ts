export { counterbalancedOrder } from './paired-order.ts'
export type { PairedCheck, PairLimits, PairRatio } from './paired-verdict.ts'
export { judgePairedGate, nextPair, sequentialConfidence } from './paired-verdict.ts'
