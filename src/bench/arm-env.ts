import { OptionsError } from '../core/contract/errors.ts'

/** `<label>:<pair>`, set by `vitest-llm-bench ab` on each `vitest bench` it runs: this process measures one arm of one pair. */
export const ARM_ENV = 'LLM_BENCH_ARM'
/** Where an arm's benches write their result files (set with {@link ARM_ENV}). */
export const ARM_DIR_ENV = 'LLM_BENCH_ARM_DIR'
/** What an arm does with each bench, an {@link ArmMode} as JSON; unset: one trial, alone (arms apart). */
export const ARM_MODE_ENV = 'LLM_BENCH_ARM_MODE'

/** One arm of one pair of an `ab` run: every `bench.llm` measures one trial and writes it to `dir`, unjudged. */
export interface ArmRun {
  /** `base` or `head`. */
  label: string
  /** Pair number, from 1 (0 where the arm lists its benches or takes turns over pairs). */
  pair: number
  /** Absolute folder of the arm's result files. */
  dir: string
  /** What the arm does with each bench: see {@link ARM_MODE_ENV}. */
  mode: ArmMode
}

/** What an arm of `ab` does with each `bench.llm`. */
export type ArmMode =
  | { kind: 'trial' }
  /** Only say which benches the arm has and what they need (`ab` places its arms from it). */
  | { kind: 'list' }
  /** Arms together: keep one bench's server up per pair and load it when `ab`'s turn server says. */
  | {
      kind: 'turns'
      /** The turn server of `ab` (http://127.0.0.1:port). */
      url: string
      /** Pairs at most: the bench's time limit is this many pairs of two arms. */
      pairs: number
      /** The bench that takes turns (file relative to the tree's root, full name); the others in its file pass idle. */
      file: string
      name: string
    }

function armModeOf(given: string | undefined): ArmMode | undefined {
  if (given === undefined || given === '') return { kind: 'trial' }
  let mode: unknown
  try {
    mode = JSON.parse(given)
  } catch {
    return undefined
  }
  const m = mode as Partial<Extract<ArmMode, { kind: 'turns' }>> | { kind?: unknown } | null
  if (m?.kind === 'list') return { kind: 'list' }
  if (m === null || m.kind !== 'turns') return undefined
  const t = m as Partial<Extract<ArmMode, { kind: 'turns' }>>
  if (typeof t.url !== 'string' || !/^http:\/\/127\.0\.0\.1:\d+$/.test(t.url)) return undefined
  if (!Number.isInteger(t.pairs) || typeof t.file !== 'string' || typeof t.name !== 'string') return undefined
  return { kind: 'turns', url: t.url, pairs: t.pairs as number, file: t.file, name: t.name }
}

/** The arm this process measures, from {@link ARM_ENV}, {@link ARM_DIR_ENV} and {@link ARM_MODE_ENV}; undefined outside `ab`. */
export function armFromEnv(env: Record<string, string | undefined> = process.env): ArmRun | undefined {
  const given = env[ARM_ENV]
  if (given === undefined || given === '') return undefined
  const match = /^([a-z][a-z0-9-]*):(\d+)$/.exec(given.trim())
  const dir = env[ARM_DIR_ENV]
  const mode = armModeOf(env[ARM_MODE_ENV])
  if (!match || dir === undefined || dir === '' || mode === undefined) {
    throw new OptionsError(
      ARM_ENV,
      `must be <label>:<pair> with ${ARM_DIR_ENV} set (and ${ARM_MODE_ENV} empty or an arm mode as JSON), got ${JSON.stringify(given)}`,
      `It is set by \`vitest-llm-bench ab\`; unset ${ARM_ENV} to run the benches as usual.`,
    )
  }
  return { label: match[1] as string, pair: Number(match[2]), dir, mode }
}
