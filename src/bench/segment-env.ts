import { OptionsError } from '../core/contract/errors.ts'
import type { SegmentOptions } from '../core/contract/options.ts'

/** `i/N`: this host's segment (1-based) of N. */
export const SEGMENT_ENV = 'LLM_BENCH_SEGMENT'
/** N, with a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX` (0-based) in place of `LLM_BENCH_SEGMENT`. */
export const SEGMENTS_ENV = 'LLM_BENCH_SEGMENTS'
/** Set by a Kubernetes Indexed Job: this pod's index, 0-based. */
export const JOB_INDEX_ENV = 'JOB_COMPLETION_INDEX'
/** Wall-clock start of every host's measured load, epoch milliseconds. */
export const START_AT_ENV = 'LLM_BENCH_START_AT'
/** Where a segmented bench writes its result file. Default `llm-bench-segments` in the working directory. */
export const SEGMENT_DIR_ENV = 'LLM_BENCH_SEGMENT_DIR'

const wholeNumber = (text: string): number | undefined => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined)

/**
 * This host's segment from the environment (docs/distributed.md): `LLM_BENCH_SEGMENT=i/N`, or
 * `JOB_COMPLETION_INDEX` with `LLM_BENCH_SEGMENTS=N`, and `LLM_BENCH_START_AT`. Undefined when
 * neither is set: the whole load runs here, as always. Range checks against the load are the plan's.
 */
export function segmentFromEnv(env: Record<string, string | undefined> = process.env): SegmentOptions | undefined {
  const given = env[SEGMENT_ENV]
  const jobIndex = env[JOB_INDEX_ENV]
  const total = env[SEGMENTS_ENV]
  let index: number | undefined
  let count: number | undefined
  if (given !== undefined && given !== '') {
    const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(given)
    if (!match)
      throw new OptionsError(
        SEGMENT_ENV,
        `must be i/N (this host's segment of N, from 1), got ${JSON.stringify(given)}`,
        'e.g. LLM_BENCH_SEGMENT=2/4 on the second of four hosts.',
      )
    index = Number(match[1])
    count = Number(match[2])
  } else if (total !== undefined && total !== '') {
    count = wholeNumber(total)
    if (count === undefined)
      throw new OptionsError(
        SEGMENTS_ENV,
        `must be the number of segments, got ${JSON.stringify(total)}`,
        "e.g. LLM_BENCH_SEGMENTS=4, the Job's completions.",
      )
    const zeroBased = jobIndex === undefined ? undefined : wholeNumber(jobIndex)
    if (zeroBased === undefined) {
      throw new OptionsError(
        JOB_INDEX_ENV,
        `must be this pod's 0-based index with ${SEGMENTS_ENV} set, got ${JSON.stringify(jobIndex)}`,
        'Run in a Kubernetes Job with completionMode: Indexed, or set LLM_BENCH_SEGMENT=i/N.',
      )
    }
    index = zeroBased + 1
  }
  const startText = env[START_AT_ENV]
  if (index === undefined || count === undefined) {
    if (startText !== undefined && startText !== '')
      throw new OptionsError(
        START_AT_ENV,
        `is set but no segment is (${SEGMENT_ENV} or ${SEGMENTS_ENV})`,
        `Set ${SEGMENT_ENV}=i/N on every host, or unset ${START_AT_ENV}.`,
      )
    return undefined
  }
  let startAtMs: number | undefined
  if (startText !== undefined && startText !== '') {
    startAtMs = wholeNumber(startText)
    if (startAtMs === undefined)
      throw new OptionsError(
        START_AT_ENV,
        `must be epoch milliseconds, got ${JSON.stringify(startText)}`,
        'e.g. LLM_BENCH_START_AT=$(( ($(date +%s) + 120) * 1000 )), the same on every host.',
      )
  }
  return { index, count, ...(startAtMs !== undefined ? { startAtMs } : {}) }
}
