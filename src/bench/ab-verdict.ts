/**
 * The verdict of an `ab` run: every bench of the working tree (head) against the same bench of the
 * base revision, on the pairs both arms measured, by the paired rules of `bench.llm.compare`.
 */
import { baselineConfigOf, diffConfigs, hashConfig } from '../core/baseline/index.ts'
import { canonicalConfig } from '../core/plan/index.ts'
import { evaluateSlo, type SloCheck } from '../core/slo/index.ts'
import { mergeTrials } from '../core/trials/index.ts'
import type { ArmFile } from './arm-file.ts'
import {
  faultOf,
  judgeVariant,
  type CompareTrial,
  type CompareVariantVerdict,
  type GateConfidence,
} from './compare-bench.ts'

/** The two arms of an `ab` run. */
export const AB_ARMS = ['base', 'head'] as const

/** What `ab` decided for one bench. */
export interface AbBenchVerdict {
  /** Bench file, relative to the package root, `/` separators. */
  file: string
  name: string
  /**
   * `pass`, `fail`, `inconclusive`: head against base on the pairs; `new`: no base arm (only its SLOs
   * are checked); `gone`: in base only; `changed`: its workload or load differs between the
   * revisions, so no relative verdict; `fault`: a trial's server failed (fails the run); `not gated`:
   * the bench sets `baseline: false`.
   */
  status: 'pass' | 'fail' | 'inconclusive' | 'new' | 'gone' | 'changed' | 'fault' | 'not gated'
  /** Head against base, gate by gate; absent without a relative verdict. */
  paired?: CompareVariantVerdict
  /** What changed in the config (`load.concurrency 16 -> 32`), for `changed`. */
  changes?: string[]
  /** The failing trial, for `fault`. */
  fault?: string
  /** Head's SLOs on its trials together. */
  sloChecks?: SloCheck[]
  /** Pairs in which both arms measured this bench. */
  pairs: number
  /** The base arm against the stored baseline of the same configuration (see `driftOf`); absent without one. */
  drift?: string
}

const keyOf = (file: ArmFile): string => `${file.file}\u0000${file.name}`
const identityOf = (file: ArmFile): unknown => canonicalConfig(baselineConfigOf(file.result.config))

/** Judges one bench from its arm files (any pairs, either arm). */
function judgeBench(files: readonly ArmFile[], confidence: GateConfidence): AbBenchVerdict {
  const first = files[0] as ArmFile
  const base = files.filter((file) => file.arm === 'base')
  const head = files.filter((file) => file.arm === 'head')
  const pairs = new Set(base.map((file) => file.pair).filter((pair) => head.some((file) => file.pair === pair))).size
  const out: AbBenchVerdict = { file: first.file, name: first.name, status: 'inconclusive', pairs }
  const slo = head[0]?.slo
  if (slo !== undefined && head.length > 0)
    out.sloChecks = evaluateSlo(mergeTrials(head.map((file) => file.result)), slo)
  for (const file of files) {
    const fault = faultOf(`${file.arm} (pair ${file.pair})`, file.result)
    if (fault !== undefined) return { ...out, status: 'fault', fault }
  }
  if (head.length === 0) return { ...out, status: 'gone' }
  if (base.length === 0) return { ...out, status: 'new' }
  const [before, after] = [hashConfig(identityOf(base[0] as ArmFile)), hashConfig(identityOf(head[0] as ArmFile))]
  if (before !== after)
    return {
      ...out,
      status: 'changed',
      changes: diffConfigs(identityOf(base[0] as ArmFile), identityOf(head[0] as ArmFile)),
    }
  const { policy } = head[0] as ArmFile
  if (policy === false) return { ...out, status: 'not gated' }
  const trials: CompareTrial[] = files.map((file, position) => ({
    label: file.arm,
    pair: file.pair,
    position: position + 1,
    result: file.result,
  }))
  const paired = judgeVariant('head', { control: 'base', policy }, trials, confidence)
  return { ...out, status: paired.status, paired }
}

/** One verdict per bench that either arm measured, in file and name order. */
export function judgeAb(files: readonly ArmFile[], confidence: GateConfidence): AbBenchVerdict[] {
  const byBench = new Map<string, ArmFile[]>()
  for (const file of files) byBench.set(keyOf(file), [...(byBench.get(keyOf(file)) ?? []), file])
  return [...byBench.keys()].sort().map((key) => judgeBench(byBench.get(key) ?? [], confidence))
}

/** Whether the run fails: a gate failed, a server failed, or an SLO of head failed. */
export function abFailed(verdicts: readonly AbBenchVerdict[]): boolean {
  return verdicts.some(
    (v) => v.status === 'fail' || v.status === 'fault' || (v.sloChecks ?? []).some((check) => check.status === 'fail'),
  )
}
