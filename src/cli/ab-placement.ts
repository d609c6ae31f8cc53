/**
 * Where the arms of `ab` run: each revision's `vitest bench` first lists its benches and what they
 * need (nothing measured), then the arms are placed by the rules of `bench.llm.compare`
 * (`placeArms`): together where every bench is in both revisions and each pair of servers fits
 * beside each other, else apart, and the console says which and why.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { execa } from 'execa'
import { AB_ARMS } from '../bench/ab-verdict.ts'
import { ARM_DIR_ENV, ARM_ENV, ARM_MODE_ENV, type ArmMode } from '../bench/arm-env.ts'
import { readArmListed } from '../bench/arm-file.ts'
import { placeArms, type ArmsMode, type ArmsPlacement } from '../bench/arms-placement.ts'
import { OptionsError } from '../core/contract/errors.ts'
import { AbError } from './ab-error.ts'
import type { TogetherBench } from './ab-together.ts'

/** The arms of an `ab` run placed, with the benches to measure together (one at a time) when together. */
export interface AbPlacement extends ArmsPlacement {
  benches: TogetherBench[]
}

/** What placing needs: each arm's package folder and the `vitest bench` selection of the run. */
export interface AbPlacing {
  asked: ArmsMode | 'auto'
  dirs: Record<(typeof AB_ARMS)[number], string>
  /** A folder of its own for the listings. */
  listDir: string
  logDir: string
  operands: readonly string[]
  name: string | undefined
  /** Slices of each arm's load per pair with arms together. */
  slices: number
  signal: AbortSignal
}

/** Lists both arms' benches and places the arms. */
export async function placeAb(p: AbPlacing): Promise<AbPlacement> {
  if (p.asked === 'apart') return { mode: 'apart', why: 'asked for (`--arms apart`)', benches: [] }
  const mode: ArmMode = { kind: 'list' }
  const listed = await Promise.all(
    AB_ARMS.map(async (arm) => {
      const vitest = join(p.dirs[arm], 'node_modules', 'vitest', 'vitest.mjs')
      const args = [vitest, 'bench', '--run', '--passWithNoTests', ...p.operands, ...(p.name ? ['-t', p.name] : [])]
      const run = await execa(process.execPath, args, {
        cwd: p.dirs[arm],
        env: { [ARM_ENV]: `${arm}:0`, [ARM_DIR_ENV]: p.listDir, [ARM_MODE_ENV]: JSON.stringify(mode) },
        reject: false,
        all: true,
        cancelSignal: p.signal,
        forceKillAfterDelay: 15_000,
      })
      const log = join(p.logDir, `${arm}-list.log`)
      await writeFile(log, String(run.all ?? ''))
      if (p.signal.aborted) throw new AbError('stopped while the arms listed their benches.')
      return { arm, ok: run.exitCode === 0, log }
    }),
  )
  const broken = listed.find((arm) => !arm.ok)
  // Apart measures it as ever, and says what failed (a base that does not load: head alone).
  if (broken) return { mode: 'apart', why: `the ${broken.arm} arm's benches did not load (${broken.log})`, benches: [] }
  const all = await readArmListed(p.listDir).catch(() => [])
  const key = (file: string, name: string) => `${file} > ${name}`
  const base = new Map(all.filter((b) => b.arm === 'base').map((b) => [key(b.file, b.name), b]))
  const head = new Map(all.filter((b) => b.arm === 'head').map((b) => [key(b.file, b.name), b]))
  if (head.size === 0 && base.size === 0) return { mode: 'apart', why: 'no bench.llm bench was listed', benches: [] }
  const alone = [...head.keys()].find((k) => !base.has(k)) ?? [...base.keys()].find((k) => !head.has(k))
  if (alone !== undefined)
    return { mode: 'apart', why: `'${alone}' is in ${head.has(alone) ? 'head' : 'base'} only`, benches: [] }
  let why = ''
  for (const [k, b] of head) {
    const a = base.get(k)
    if (a === undefined) continue
    let placed: ArmsPlacement
    try {
      placed = placeArms(p.asked, [
        { ...a.need, label: 'base' },
        { ...b.need, label: 'head' },
      ])
    } catch (error) {
      if (error instanceof OptionsError) throw new AbError(`--arms together: '${k}': ${error.message}`)
      throw error
    }
    if (placed.mode === 'apart') return { mode: 'apart', why: `'${k}': ${placed.why}`, benches: [] }
    const fewest = Math.min(a.need.requests ?? Infinity, b.need.requests ?? Infinity)
    if (fewest < p.slices) {
      const why = `'${k}': ${fewest} requests cannot be cut into ${p.slices} slices`
      if (p.asked === 'together') throw new AbError(`--arms together: ${why}; use --slices ${fewest} or fewer.`)
      return { mode: 'apart', why, benches: [] }
    }
    why = placed.why
  }
  const benches = [...head.values()].map((b) => ({ file: b.file, name: b.name }))
  return { mode: 'together', why: p.asked === 'together' ? 'asked for (`--arms together`)' : why, benches }
}
