import type { CompareTableInput } from '../src/bench/compare-table.ts'
import type { TestCaseLike } from './report-entry.ts'

/** A `bench.llm.compare` as reporters see it: its result, and the status the console and the tally give it. */
export interface CompareEntry {
  /** Comparison name with its describe path. */
  name: string
  /** Bench file, relative to the project root when known. */
  file: string
  /** `fail` when its test failed (a gate, or a variant's server), `inconclusive` when a gate is undecided. */
  status: 'pass' | 'fail' | 'inconclusive'
  result: CompareTableInput
}

/** The entry of a test case that ran `bench.llm.compare` to a result; undefined for any other test. */
export function compareEntryOf(testCase: TestCaseLike): CompareEntry | undefined {
  const result = testCase.meta().llmBenchCompare
  // A result written by another version of the package (a merged blob report) may not be readable.
  if (result === undefined || !Array.isArray(result.variants as unknown)) return undefined
  const undecided = result.variants.some((variant) => variant.checks.some((check) => check.status === 'inconclusive'))
  return {
    name: testCase.fullName,
    file: testCase.module.relativeModuleId ?? testCase.module.moduleId,
    status: testCase.result().state === 'failed' ? 'fail' : undecided ? 'inconclusive' : 'pass',
    result,
  }
}
