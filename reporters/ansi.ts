/** ANSI styles for terminal output; every style is the identity when colour is off. */
export interface Styles {
  bold(text: string): string
  dim(text: string): string
  green(text: string): string
  red(text: string): string
  yellow(text: string): string
  cyan(text: string): string
}

function wrap(open: number, close: number): (text: string) => string {
  return (text) => `\u001b[${open}m${text}\u001b[${close}m`
}

const identity = (text: string): string => text

/** Styles that colour when `enabled`, else return text unchanged. */
export function stylesFor(enabled: boolean): Styles {
  if (!enabled)
    return { bold: identity, dim: identity, green: identity, red: identity, yellow: identity, cyan: identity }
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    green: wrap(32, 39),
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  }
}

/** Length of text as the terminal shows it (escape sequences take no columns). */
export function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '').length
}

/** The style for a verdict status: green pass, red fail, yellow anything else. */
export function statusStyle(styles: Styles, status: string): (text: string) => string {
  if (status === 'pass') return styles.green
  if (status === 'fail') return styles.red
  return styles.yellow
}
