import { closestName } from '../platform/did-you-mean.ts'
import { OptionsError } from './errors.ts'

/**
 * Refuses a key of the option object `value` (named `where`, e.g. `workload`) that is not in
 * `known` (`owner` names the object in the message; default `where`), with the closest known name as "did you mean" and the full list: a misspelt option is
 * never ignored (`ignoreEOS: false` would otherwise measure with the default). The one check of
 * unknown keys, at every level of every option object.
 * @throws {OptionsError} naming `where.key`.
 */
export function rejectUnknownKeys(
  value: object,
  known: readonly string[],
  where: string,
  owner = `\`${where}\``,
): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue
    const guess = closestName(key, known)
    const path = where === '' ? key : `${where}.${key}`
    throw new OptionsError(
      path,
      `is not an option${where === '' && owner === '``' ? '' : ` of ${owner}`}`,
      `${guess ? `Did you mean \`${where === '' ? '' : `${where}.`}${guess}\`? ` : ''}Options: ${known.join(', ')}.`,
    )
  }
}
