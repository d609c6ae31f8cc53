import { mkdirSync, writeFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { restoreParsedPolicy, type ParsedRegressionPolicy } from '../core/baseline/index.ts'
import type { BenchmarkResult } from '../core/contract/result.ts'
import type { SloOptions } from '../core/slo/index.ts'
import type { ArmRun } from './arm-env.ts'
import { readKindFiles } from './segment-file.ts'

/** What one bench measured in one arm of one pair of an `ab` run, for `ab` to judge. */
export interface ArmFile {
  kind: 'vitest-llm-bench-arm'
  version: 1
  /** `base` or `head`. */
  arm: string
  /** Pair number, from 1. */
  pair: number
  /** The bench file relative to its tree's root (the working directory of `vitest bench`), `/` separators. */
  file: string
  /** The bench's full name. */
  name: string
  /** The bench's own regression policy, parsed; `false`: no baseline; undefined: the default. */
  policy: ParsedRegressionPolicy | false | undefined
  /** The bench's SLOs, checked. */
  slo: SloOptions | undefined
  result: BenchmarkResult
}

const safe = (text: string): string => text.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80)

/** Writes one bench's trial of an arm into `arm.dir` and returns its path. */
export async function writeArmFile(
  arm: ArmRun,
  file: string,
  name: string,
  policy: ArmFile['policy'],
  slo: SloOptions | undefined,
  result: BenchmarkResult,
): Promise<string> {
  await mkdir(arm.dir, { recursive: true })
  const where = relative(process.cwd(), file).split(sep).join('/')
  const path = join(arm.dir, `${arm.label}-${arm.pair}--${safe(where)}--${safe(name)}.json`)
  const content: ArmFile = {
    kind: 'vitest-llm-bench-arm',
    version: 1,
    arm: arm.label,
    pair: arm.pair,
    file: where,
    name,
    policy,
    slo,
    result,
  }
  await writeFile(path, `${JSON.stringify(content)}\n`)
  return path
}

/** Every arm file under `dir`, in path order; each policy read back as the parsed policy it was written from. */
export async function readArmFiles(dir: string): Promise<ArmFile[]> {
  return (await readKindFiles<ArmFile>(dir, 'vitest-llm-bench-arm', 'An `ab` run writes them; run it again.')).map(
    ({ path, content }) => ({
      ...content,
      policy:
        content.policy === false || content.policy === undefined
          ? content.policy
          : restoreParsedPolicy(content.policy, path),
    }),
  )
}

/** A bench an `ab` arm does not measure (a sweep, a comparison), so that `ab` can say it was not compared. */
export interface SkippedInArm {
  kind: 'vitest-llm-bench-arm-skipped'
  version: 1
  /** The bench file relative to its tree's root, `/` separators. */
  file: string
  /** The name it was registered under (without its describe path, which is not known at registration). */
  name: string
  /** `sweep` or `compare`. */
  what: string
}

/** Notes, at registration, that an arm skips this bench (written once per arm and pair; `ab` reads them). */
export function writeSkippedInArm(arm: ArmRun, file: string, name: string, what: string): void {
  mkdirSync(arm.dir, { recursive: true })
  const where = relative(process.cwd(), file).split(sep).join('/')
  const content: SkippedInArm = { kind: 'vitest-llm-bench-arm-skipped', version: 1, file: where, name, what }
  writeFileSync(
    join(arm.dir, `skipped-${arm.label}-${arm.pair}--${safe(where)}--${safe(name)}.json`),
    JSON.stringify(content),
  )
}

/** The benches the arms under `dir` skipped, each once (by file and name), in path order. */
export async function readSkippedInArms(dir: string): Promise<SkippedInArm[]> {
  const files = await readKindFiles<SkippedInArm>(dir, 'vitest-llm-bench-arm-skipped', 'An `ab` run writes them.')
  const seen = new Map<string, SkippedInArm>()
  for (const { content } of files) seen.set(`${content.file}\u0000${content.name}`, content)
  return [...seen.values()]
}
