import { mkdirSync, writeFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import {
  defaultRegressionPolicy,
  parseRegressionPolicy,
  restoreParsedPolicy,
  type ParsedRegressionPolicy,
} from '../core/verdict/index.ts'
import type { BenchmarkResult } from '../core/contract/result.ts'
import type { SloOptions } from '../core/slo/index.ts'
import type { ArmRun } from './arm-env.ts'
import type { ArmNeed } from './arms-placement.ts'
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
  /**
   * The bench's regression policy as the arm resolved it (its own, the plugin's tolerance, else the default of its
   * API: embeddings and rerank gate E2E and tokens/s), parsed; `false`: no baseline.
   */
  policy: ParsedRegressionPolicy | false
  /** The bench's SLOs, checked. */
  slo: SloOptions | undefined
  /** What the arm measured in the pair (arms together: its slices merged). */
  result: BenchmarkResult
  /** Arms together: each slice of the arm's load in the pair, in order (judged slice against slice). */
  slices?: BenchmarkResult[]
}

const safe = (text: string): string => text.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80)

/** Writes one bench's trial of an arm into `arm.dir` and returns its path. */
export async function writeArmFile(
  arm: Pick<ArmRun, 'label' | 'pair' | 'dir'>,
  file: string,
  name: string,
  policy: ArmFile['policy'],
  slo: SloOptions | undefined,
  result: BenchmarkResult,
  slices?: BenchmarkResult[],
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
    ...(slices !== undefined ? { slices } : {}),
  }
  await writeFile(path, `${JSON.stringify(content)}\n`)
  return path
}

/**
 * Every arm file under `dir`, in path order; each policy read back as the parsed policy it was written from. A base
 * revision from before arms resolved their policy wrote none for a bench on the defaults: its API's default here.
 */
export async function readArmFiles(dir: string): Promise<ArmFile[]> {
  type Written = Omit<ArmFile, 'policy'> & { policy: ArmFile['policy'] | undefined }
  return (await readKindFiles<Written>(dir, 'vitest-llm-bench-arm', 'An `ab` run writes them; run it again.')).map(
    ({ path, content }) => ({
      ...content,
      policy:
        content.policy === false
          ? false
          : content.policy === undefined
            ? parseRegressionPolicy(defaultRegressionPolicy(content.result.config.target))
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
export function writeSkippedInArm(
  arm: Pick<ArmRun, 'label' | 'pair' | 'dir'>,
  file: string,
  name: string,
  what: string,
): void {
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

/** A bench an arm has, as it listed it for `ab` to place the arms (written instead of measuring). */
export interface ArmListed {
  kind: 'vitest-llm-bench-arm-listed'
  version: 1
  /** `base` or `head`. */
  arm: string
  /** The bench file relative to its tree's root, `/` separators. */
  file: string
  /** The bench's full name (`describe > … > name`). */
  name: string
  /** What placement reads of it. */
  need: ArmNeed
}

/** Writes one bench's listing of an arm into `arm.dir`. */
export async function writeArmListed(
  arm: Pick<ArmRun, 'label' | 'dir'>,
  file: string,
  name: string,
  need: ArmNeed,
): Promise<void> {
  await mkdir(arm.dir, { recursive: true })
  const where = relative(process.cwd(), file).split(sep).join('/')
  const content: ArmListed = {
    kind: 'vitest-llm-bench-arm-listed',
    version: 1,
    arm: arm.label,
    file: where,
    name,
    need,
  }
  await writeFile(
    join(arm.dir, `listed-${arm.label}--${safe(where)}--${safe(name)}.json`),
    `${JSON.stringify(content)}\n`,
  )
}

/** Every bench the arms under `dir` listed, in path order. */
export async function readArmListed(dir: string): Promise<ArmListed[]> {
  return (await readKindFiles<ArmListed>(dir, 'vitest-llm-bench-arm-listed', 'An `ab` run writes them.')).map(
    ({ content }) => content,
  )
}
