import { OptionsError } from '../contract/errors.ts'

/**
 * What an undecided gate does to the bench that measured it: `warn` (it passes and says why), `fail`, or `pass`
 * (it passes quietly). One rule for `bench.llm` (`trials.onInconclusive`) and `bench.llm.compare`
 * (`onInconclusive`).
 */
export type OnInconclusive = 'warn' | 'fail' | 'pass'

const CHOICES: readonly OnInconclusive[] = ['warn', 'fail', 'pass']

/** What an undecided gate does when the options leave it out. */
const DEFAULT_ON_INCONCLUSIVE: OnInconclusive = 'warn'

/**
 * `value` as an {@link OnInconclusive}, the default where it is undefined.
 * @param optionPath Where it was given (`trials.onInconclusive`), for the error.
 * @param example The option written with `'fail'`, as the error's example.
 * @throws {OptionsError} naming the option when it is not one of the three.
 */
export function parseOnInconclusive(value: unknown, optionPath: string, example: string): OnInconclusive {
  const rule = value ?? DEFAULT_ON_INCONCLUSIVE
  if (!(CHOICES as readonly unknown[]).includes(rule))
    throw new OptionsError(
      optionPath,
      `must be 'warn', 'fail' or 'pass', got ${JSON.stringify(rule)}`,
      `e.g. \`${example}\` for a strict gate.`,
    )
  return rule as OnInconclusive
}
