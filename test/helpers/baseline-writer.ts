/**
 * One run of a bench file under `-u`, as a process of its own (test/integration/baseline-concurrency):
 * records the entry of the one bench it ran (the store's save, as a bench does when it ends), then
 * reconciles obsolete entries against every name the file registers (as the reporter does after the
 * run). Usage: node baseline-writer.ts <bench file> <bench name> <registered names JSON file>.
 */
import { readFile } from 'node:fs/promises'
import { BaselineStore, baselineEntryFrom, baselinePathFor } from '../../src/core/baseline/index.ts'
import { reconcileObsoleteBaselines } from '../../src/bench/obsolete-baselines.ts'
import { lognormalSamples, makeResult, seededRandom } from './baseline-fixtures.ts'

const [benchFile, name, namesFile] = process.argv.slice(2)
if (benchFile === undefined || name === undefined || namesFile === undefined)
  throw new Error('usage: baseline-writer.ts <bench file> <name> <names.json>')
const registered = new Set(JSON.parse(await readFile(namesFile, 'utf8')) as string[])
const store = await BaselineStore.open(baselinePathFor(benchFile), { updateMode: 'all', ci: false })
store.match(name, baselineEntryFrom(makeResult({ ttftMs: lognormalSamples(seededRandom(name.length), 20, 100, 0.2) })))
await store.save()
await reconcileObsoleteBaselines([{ file: benchFile, names: registered, complete: true }], { update: 'all' })
