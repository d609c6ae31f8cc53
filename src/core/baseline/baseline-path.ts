import { basename, dirname, resolve } from 'node:path'

/** Folder beside each bench file that holds its baselines (as Vitest's `__snapshots__`). */
export const BASELINE_DIR = '__llm_baselines__'

/**
 * Where the baselines of `benchFile` live: `<dir of bench file>/__llm_baselines__/<file name>.json`,
 * e.g. `benches/chat.bench.ts` -> `benches/__llm_baselines__/chat.bench.ts.json`. The whole file
 * name is kept so `chat.bench.ts` and `chat.bench.js` never share a file.
 *
 * @param baselineDir Folder to use instead of `__llm_baselines__`; a relative one is resolved from
 *   the bench file's folder. Bench files with the same name in different folders collide when it
 *   points to one shared folder.
 */
export function baselinePathFor(benchFile: string, baselineDir: string = BASELINE_DIR): string {
  return resolve(dirname(benchFile), baselineDir, `${basename(benchFile)}.json`)
}
