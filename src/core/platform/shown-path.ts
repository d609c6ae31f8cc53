import { isAbsolute, relative, sep } from 'node:path'

/**
 * A path as a message shows it: relative to the working directory where it lies inside it
 * (`benches/__llm_baselines__/chat.bench.ts.json`, what `git add` takes), else as given.
 */
export function shownPath(path: string, cwd: string = process.cwd()): string {
  const inside = relative(cwd, path)
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return path
  return inside.split(sep).join('/')
}
