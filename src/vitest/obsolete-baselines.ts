import { relative } from 'node:path'
import type { Reporter, TestModule, TestProject, Vitest } from 'vitest/node'
import { reconcileObsoleteBaselines, type BenchFileNames, type ObsoleteBaselines } from '../bench/obsolete-baselines.ts'
import type { UpdateMode } from '../bench/provided.ts'

/**
 * The names registered in each module of a finished run. A module counts as complete only when
 * it ran (not queued or still pending) and neither it nor any of its suites has a collection
 * error (a throwing `describe` body or import stops registration half way). Tests skipped by
 * `.skip`, `.only` elsewhere, `-t` or a line filter are still collected, so their names count.
 */
export function benchFileNamesOf(modules: ReadonlyArray<TestModule>): BenchFileNames[] {
  const byFile = new Map<string, BenchFileNames>()
  for (const module of modules) {
    const state = module.state()
    let complete = (state === 'passed' || state === 'failed' || state === 'skipped') && module.errors().length === 0
    for (const suite of module.children.allSuites()) {
      if (suite.errors().length > 0 || suite.state() === 'pending') complete = false
    }
    const names = new Set<string>()
    for (const test of module.children.allTests()) {
      names.add(test.fullName)
      if (test.result().state === 'pending') complete = false
    }
    // One file can run in several projects: its entries are obsolete only if no run registered them.
    const seen = byFile.get(module.moduleId)
    if (seen) {
      for (const name of names) seen.names.add(name)
      seen.complete &&= complete
    } else {
      byFile.set(module.moduleId, { file: module.moduleId, names, complete })
    }
  }
  return [...byFile.values()]
}

/** Obsolete names listed by name at most; the rest are counted (9,000 names made one 198 KB console line). */
const LISTED_NAMES = 10

/** The console line for one file's obsolete entries. */
export function formatObsoleteBaselines(obsolete: ObsoleteBaselines, root: string): string {
  const path = relative(root, obsolete.path) || obsolete.path
  const rest = obsolete.names.length - LISTED_NAMES
  const names = `${obsolete.names.slice(0, LISTED_NAMES).join(', ')}${rest > 0 ? ` and ${rest} more` : ''}`
  return obsolete.removed
    ? `Removed obsolete baseline entries from ${path}: ${names}`
    : `Obsolete baseline entries in ${path}: ${names} (run \`npx vitest bench ${relative(root, obsolete.benchFile) || obsolete.benchFile} -u\` to remove them)`
}

/**
 * Registered by the plugin: after each run, reports (or under `-u` removes) baseline entries of
 * benches that no longer exist, for the projects that use the plugin.
 */
export class ObsoleteBaselineReporter implements Reporter {
  readonly #vitest: Vitest
  /** Baseline folder option per project that has the plugin. */
  readonly #projects = new Map<TestProject, { baselineDir: string | undefined }>()

  constructor(vitest: Vitest) {
    this.#vitest = vitest
  }

  /** Adds a project whose bench files keep baselines in `baselineDir`. */
  addProject(project: TestProject, baselineDir: string | undefined): void {
    this.#projects.set(project, { baselineDir })
  }

  async onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    _errors: ReadonlyArray<unknown>,
    reason: 'passed' | 'interrupted' | 'failed',
  ): Promise<void> {
    // A bail or Ctrl-C leaves files half run: nothing can be called obsolete then.
    if (reason === 'interrupted') return
    const update = this.#vitest.config.snapshotOptions.updateSnapshot as UpdateMode
    const byDir = new Map<string | undefined, TestModule[]>()
    for (const module of testModules) {
      const settings = this.#projects.get(module.project)
      if (!settings) continue
      const list = byDir.get(settings.baselineDir) ?? []
      list.push(module)
      byDir.set(settings.baselineDir, list)
    }
    for (const [baselineDir, modules] of byDir) {
      const found = await reconcileObsoleteBaselines(benchFileNamesOf(modules), { update, baselineDir })
      for (const obsolete of found) this.#vitest.logger.log(formatObsoleteBaselines(obsolete, this.#vitest.config.root))
    }
  }
}
