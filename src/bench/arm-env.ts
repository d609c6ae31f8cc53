import { OptionsError } from '../core/contract/errors.ts'

/** `<label>:<pair>`, set by `vitest-llm-bench ab` on each `vitest bench` it runs: this process measures one arm of one pair. */
export const ARM_ENV = 'LLM_BENCH_ARM'
/** Where an arm's benches write their result files (set with {@link ARM_ENV}). */
export const ARM_DIR_ENV = 'LLM_BENCH_ARM_DIR'

/** One arm of one pair of an `ab` run: every `bench.llm` measures one trial and writes it to `dir`, unjudged. */
export interface ArmRun {
  /** `base` or `head`. */
  label: string
  /** Pair number, from 1. */
  pair: number
  /** Absolute folder of the arm's result files. */
  dir: string
}

/** The arm this process measures, from {@link ARM_ENV} and {@link ARM_DIR_ENV}; undefined outside `ab`. */
export function armFromEnv(env: Record<string, string | undefined> = process.env): ArmRun | undefined {
  const given = env[ARM_ENV]
  if (given === undefined || given === '') return undefined
  const match = /^([a-z][a-z0-9-]*):(\d+)$/.exec(given.trim())
  const dir = env[ARM_DIR_ENV]
  if (!match || dir === undefined || dir === '') {
    throw new OptionsError(
      ARM_ENV,
      `must be <label>:<pair> with ${ARM_DIR_ENV} set, got ${JSON.stringify(given)}`,
      `It is set by \`vitest-llm-bench ab\`; unset ${ARM_ENV} to run the benches as usual.`,
    )
  }
  return { label: match[1] as string, pair: Number(match[2]), dir }
}
