import type { BenchmarkResult } from '../../src/core/contract/result.ts'

/**
 * A slowed server must fail against a stored baseline, except on a disturbed machine, where the
 * verdict turns every fail into inconclusive and names the disturbance (by design: a CI host with
 * 5-13 % steal for the whole job cannot tell a slower server from a slower machine). Tests that
 * assert a fail accept that instead, and assert that the disturbance was named.
 */
// As the verdict's note ("The machine was disturbed … (X): failures are reported as inconclusive") or an
// inconclusive check's reason on the console ("… measured (X); …").
const DISTURBED = /the machine was disturbed while this run measured \((.+?)\)(?=[:;]|$)/im
// Steal below the disturbance limit: a fail it can explain is inconclusive, and says so.
const STEAL = /(the hypervisor took [\d.]+ % of the CPU \(steal\)), which can move this/i

/** What disturbed the run, when `text` is a verdict that could not fail because of it; else undefined. */
export function disturbanceNamed(text: string): string | undefined {
  return DISTURBED.exec(text)?.[1] ?? STEAL.exec(text)?.[1]
}

/**
 * Skips the rest of a test whose bounds only hold on a quiet machine when the run's self-check says
 * the machine was disturbed, naming what disturbed it (a skip, not a pass: the report shows it).
 */
export function skipWhenDisturbed(
  ctx: { skip: (note?: string) => never },
  result: Pick<BenchmarkResult, 'client'>,
): void {
  const disturbed = result.client.selfCheck?.disturbed ?? []
  if (disturbed.length > 0)
    ctx.skip(`the machine was disturbed (${disturbed.join('; ')}): a quiet machine's bounds are not asserted`)
}

/**
 * Asserts that a run wrote its baseline entry (`written` or `updated`): on a disturbed machine it is written as a
 * provisional entry instead (state `provisional`), by design, and then the notes must name what disturbed it.
 */
export function expectRecorded(
  judgement: { baselineState?: string; notes: string[] },
  result: Pick<BenchmarkResult, 'client'>,
  state: 'written' | 'updated' = 'written',
): void {
  const disturbed = result.client.selfCheck?.disturbed ?? []
  if (disturbed.length === 0) {
    if (judgement.baselineState !== state) throw new Error(`baseline ${judgement.baselineState}, not ${state}`)
    return
  }
  if (judgement.baselineState !== 'provisional')
    throw new Error(`on a disturbed machine (${disturbed.join('; ')}): baseline ${judgement.baselineState}`)
  const note = judgement.notes.find((line) => line.startsWith('baseline recorded provisionally'))
  if (note === undefined || !note.includes(disturbed[0] ?? ''))
    throw new Error(`no note names the disturbance (${disturbed.join('; ')}): ${judgement.notes.join(' | ')}`)
}
