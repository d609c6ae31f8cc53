/**
 * Which Vitest versions the package supports, and the check that a `bench.llm` block will run
 * under the runner of the current mode.
 */

import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The Vitest lines this package runs on, as the peer range states them. */
export const SUPPORTED_VITEST = '^4.1.0 || ^5.0.0'

/** Set on `globalThis` by the Vitest 4 bench runner when it runs a worker's files. */
export const VITEST4_RUNNER_MARK = Symbol.for('vitest-llm-bench.vitest4-bench-runner')

/** An error for a config that cannot run: its message is the whole story, with no stack of Vitest's config loading below it. */
export function configError(message: string): Error {
  const error = new Error(message)
  error.stack = `${error.name}: ${message}`
  return error
}

/** The major and minor of a Vitest version string such as `4.1.12` or `5.0.0-beta.3`. */
function parseVersion(version: string): { major: number; minor: number } | undefined {
  const match = /^(\d+)\.(\d+)\./.exec(version)
  return match ? { major: Number(match[1]), minor: Number(match[2]) } : undefined
}

/**
 * The Vitest line of `version`: 4 (4.1 and later 4.x) or 5; throws, naming the version found and
 * the supported ones, for any other (3.x and older, 4.0, an unknown major).
 */
export function vitestLine(version: string): 4 | 5 {
  const parsed = parseVersion(version)
  if (parsed?.major === 5) return 5
  if (parsed?.major === 4 && parsed.minor >= 1) return 4
  throw new Error(
    `vitest-llm-bench supports Vitest ${SUPPORTED_VITEST} (4.1 or later 4.x, or 5.x); this project has Vitest ${version}. ` +
      (parsed !== undefined && parsed.major < 5
        ? 'Upgrade it: `npm install -D vitest@^4.1` (or `vitest@^5`, which needs Node >= 22.12).'
        : 'This Vitest is newer than the package knows: install vitest@^5 until vitest-llm-bench supports it.'),
  )
}

/**
 * The version of the Vitest this package resolves, read from its package.json (found from where
 * `vitest` resolves: Vitest 3 does not export its package.json, and importing `vitest` itself from a
 * config throws on Vitest 3). Undefined when it cannot be found.
 */
export function installedVitestVersion(): string | undefined {
  let dir: string
  try {
    dir = dirname(fileURLToPath(import.meta.resolve('vitest')))
  } catch {
    return undefined
  }
  for (; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json')
    if (!existsSync(file)) continue
    try {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string }
      if (manifest.name === 'vitest' && typeof manifest.version === 'string') return manifest.version
    } catch {
      // Not readable: look further up.
    }
  }
  return undefined
}

/** What a Vitest worker says of itself (its internal state, the same on Vitest 4 and 5). */
interface WorkerState {
  config?: { mode?: string; runner?: string }
}

/**
 * Throws at collection when a `bench.llm` block would not run: Vitest 4's `vitest bench` runs only
 * Vitest's own `bench()` blocks unless the plugin's runner is installed, so without this the run
 * would pass having measured nothing.
 */
export function assertBenchWillRun(name: string): void {
  const state = (globalThis as { __vitest_worker__?: WorkerState }).__vitest_worker__
  if (state?.config?.mode !== 'benchmark') return
  if ((globalThis as Record<symbol, unknown>)[VITEST4_RUNNER_MARK] === true) return
  const why = state.config.runner
    ? `this project's test.runner (${state.config.runner}) runs it instead of the runner llmBench() installs`
    : "the llmBench() plugin is not in this project's Vitest config"
  throw new Error(
    `bench.llm('${name}') would not run: under Vitest 4, \`vitest bench\` runs only Vitest's own bench() blocks, and ${why}. ` +
      "Add the plugin (`import { llmBench } from 'vitest-llm-bench'`, `plugins: [llmBench()]` in vitest.config) and leave test.runner unset in bench mode, or run the bench files with `vitest run`.",
  )
}
