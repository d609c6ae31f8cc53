import type { ParsedRegressionPolicy } from '../core/verdict/index.ts'
import type { SloOptions } from '../core/slo/index.ts'

/** What judging a segment needs besides its result: the bench's own policy and SLOs, parsed at collection. */
export interface SegmentJudge {
  /** The bench's regression policy, parsed; `false`: no baseline. */
  policy: ParsedRegressionPolicy | false
  /** The bench's SLOs, checked. */
  slo: SloOptions | undefined
}
