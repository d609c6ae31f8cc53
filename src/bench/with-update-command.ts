/** A message from the baseline store or the judge with its generic `vitest bench -u` replaced by `command`. */
export function withUpdateCommand(text: string, command: string | undefined): string {
  return command === undefined ? text : text.split('`vitest bench -u`').join(`\`${command}\``)
}
