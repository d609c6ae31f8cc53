// Writing baselines: a full disk and a read-only folder keep the old bytes; a compare never rewrites a file it does
// not change (a 4-space one, a read-only checkout); two `-u` runs at once lose no entry; obsolete names are listed
// ten and counted; a stale temporary file is removed by the next write.
import { readdirSync, readFileSync, renameSync, utimesSync, writeFileSync, mkdirSync, cpSync, rmSync } from 'node:fs'
import { benchFile, benchOptions, configFile } from '../fixtures.ts'
import { mount, unmountUnder } from '../mounts.ts'
import { describeLeft } from '../processes.ts'
import { exitText, joined, longestLine, quote } from './observe.ts'
import type { Row, RowOutcome, RowRun } from './row.ts'

const DIR = 'benches/__llm_baselines__'
const FILE = `${DIR}/a.bench.ts.json`
/** A recording that is trusted even on a disturbed machine (a provisional one is replaced by the next quiet run). */
const FORCE = { LLM_BENCH_FORCE_BASELINE: '1' }
/** Wide tolerances: these rows judge files, not verdicts. */
const LOOSE = `{ ttftMs: { p50: '+200%' }, tpotMs: { p50: '+200%' }, outputTokensPerSec: '-70%' }`

/** Writes the config and a one-bench file, records it with `-u`; undefined when that worked, else why not. */
async function recorded(row: RowRun, names = ['a1']): Promise<string | undefined> {
  row.write({
    'vitest.config.mts': configFile(),
    'benches/a.bench.ts': benchFile(names.map((name) => [name, benchOptions(8, { baseline: LOOSE })])),
  })
  const ran = await row.bench(['-u'], { env: FORCE })
  return ran.rc === 0 && row.sha(FILE) !== 'absent' ? undefined : `recording: ${exitText(ran)}`
}

/** Runs `-u` with `DIR` made unwritable by `prepare` (a mount); the old bytes must stay and the run exit 1. */
async function unwritable(row: RowRun, prepare: () => string | undefined, key: RegExp): Promise<RowOutcome> {
  const failed = await recorded(row)
  if (failed) return { observed: failed, held: false }
  const before = row.sha(FILE)
  const mountError = prepare()
  if (mountError) return { observed: `could not mount: ${mountError}`, held: false }
  try {
    const ran = await row.bench(['-u'])
    const after = row.sha(FILE)
    const left = await row.left()
    return {
      observed: joined(
        `${exitText(ran)}`,
        `${quote(ran.output, key)}`,
        `bytes ${before === after ? 'unchanged' : `${before} -> ${after}`}`,
        `${describeLeft(left)}`,
      ),
      held: ran.rc === 1 && key.test(ran.output) && before === after && left.length === 0,
    }
  } finally {
    unmountUnder(row.path(DIR))
  }
}

/** Moves `DIR`'s files onto a fresh mount at `DIR` made by `args` (the folder's own files copied back in). */
function remount(row: RowRun, args: (dir: string) => string[][]): string | undefined {
  const dir = row.path(DIR)
  const aside = row.path('baselines-aside')
  renameSync(dir, aside)
  mkdirSync(dir)
  for (const step of args(dir)) {
    const error = mount(step)
    if (error) return error
    if (step.includes('tmpfs')) cpSync(aside, dir, { recursive: true })
  }
  rmSync(aside, { recursive: true, force: true })
  return undefined
}

/** Fills the file system at `dir` until a write fails, then frees one 4 KB page: room for a lock, not a baseline. */
function fill(dir: string): void {
  const chunk = Buffer.alloc(1024, 1)
  for (let i = 0; i < 100_000; i++) {
    try {
      writeFileSync(`${dir}/filler-${i}`, chunk)
    } catch {
      for (let k = 1; k <= 1 && i - k >= 0; k++) rmSync(`${dir}/filler-${i - k}`, { force: true })
      return
    }
  }
}

/** A compare run after `prepare`; the file's bytes must be unchanged and the run exit 0. */
async function compareKeeps(row: RowRun, prepare: () => string | undefined): Promise<RowOutcome> {
  const failed = await recorded(row)
  if (failed) return { observed: failed, held: false }
  const mountError = prepare()
  if (mountError) return { observed: `could not prepare: ${mountError}`, held: false }
  const before = row.sha(FILE)
  try {
    const ran = await row.bench([])
    const after = row.sha(FILE)
    return {
      observed: joined(
        `${exitText(ran)}`,
        `${quote(ran.output, /a1|EROFS|Cannot/)}`,
        `bytes ${before === after ? `unchanged (${before})` : `${before} -> ${after}`}`,
      ),
      held: ran.rc === 0 && before === after,
    }
  } finally {
    unmountUnder(row.path('benches'))
  }
}

/** Entry names of the row's baseline file, or undefined when it does not parse. */
function entryNames(row: RowRun): string[] | undefined {
  try {
    return Object.keys((JSON.parse(readFileSync(row.path(FILE), 'utf8')) as { entries: object }).entries)
  } catch {
    return undefined
  }
}

export const baselineWriteRows: Row[] = [
  {
    id: 'disk-full',
    family: 'baseline writes',
    does: '-u, the baseline folder on a 256 KB tmpfs full but for one 4 KB page (the lock fits, the 5 KB file not)',
    expects: 'exit 1 naming ENOSPC or no space, the old bytes kept',
    run: (row) =>
      unwritable(
        row,
        () => {
          const error = remount(row, (dir) => [['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', dir]])
          if (!error) fill(row.path(DIR))
          return error
        },
        /ENOSPC|no space/i,
      ),
  },
  {
    id: 'baseline-folder-read-only',
    family: 'baseline writes',
    does: '-u with the baseline folder bind-mounted read-only (root ignores chmod)',
    expects: 'exit 1 naming EROFS or read-only, the old bytes kept',
    run: (row) =>
      unwritable(
        row,
        () => mount(['--bind', row.path(DIR), row.path(DIR)]) ?? mount(['-o', 'remount,ro,bind', row.path(DIR)]),
        /EROFS|read-only file system/i,
      ),
  },
  {
    id: 'compare-keeps-4-space-file',
    family: 'baseline writes',
    does: 'a compare run against a valid baseline re-indented with 4 spaces',
    expects: 'exit 0, the bytes unchanged',
    run: (row) =>
      compareKeeps(row, () => {
        const text = readFileSync(row.path(FILE), 'utf8')
        writeFileSync(row.path(FILE), `${JSON.stringify(JSON.parse(text), null, 4)}\n`)
        return undefined
      }),
  },
  {
    id: 'compare-read-only-checkout',
    family: 'baseline writes',
    does: 'a compare run with benches/ (bench file and baselines) bind-mounted read-only; reports still writable',
    expects: 'exit 0, the bytes unchanged',
    run: (row) =>
      compareKeeps(
        row,
        () =>
          mount(['--bind', row.path('benches'), row.path('benches')]) ??
          mount(['-o', 'remount,ro,bind', row.path('benches')]),
      ),
  },
  {
    id: 'concurrent-updates',
    family: 'baseline writes',
    does: '3 tries of `-t ^aK$ -u` and `-t ^aK+1$ -u` at once on one file of 40 recorded benches',
    expects: 'every try: both exit 0, all 40 entries kept, no "Removed obsolete"',
    limitMs: 240_000,
    run: async (row) => {
      const names = Array.from({ length: 40 }, (_, i) => `a${i + 1}`)
      const failed = await recorded(row, names)
      if (failed) return { observed: failed, held: false }
      const tries: string[] = []
      let held = true
      for (const k of [1, 3, 5]) {
        const [one, two] = await Promise.all([
          row.bench(['-t', `^a${k}$`, '-u'], { env: FORCE }),
          row.bench(['-t', `^a${k + 1}$`, '-u'], { env: FORCE }),
        ])
        const kept = entryNames(row)
        const removed = /Removed obsolete/.test(one.output + two.output)
        const ok = one.rc === 0 && two.rc === 0 && kept?.length === 40 && !removed
        held &&= ok
        tries.push(
          `a${k}/a${k + 1}: exit ${one.rc}/${two.rc}, ${kept?.length ?? 'unparsable'} entries` +
            (removed ? ', REMOVED obsolete' : ''),
        )
      }
      return { observed: tries.join('; '), held }
    },
  },
  {
    id: 'obsolete-ten-and-more',
    family: 'baseline writes',
    does: 'a compare run with 25 obsolete entries (clones of a1 under other names) in the baseline file',
    expects: 'ten names, then "and 15 more", on a line under 1,000 characters; exit 0',
    run: async (row) => {
      const failed = await recorded(row)
      if (failed) return { observed: failed, held: false }
      const file = JSON.parse(readFileSync(row.path(FILE), 'utf8')) as { entries: Record<string, unknown> }
      for (let i = 1; i <= 25; i++) file.entries[`gone ${String(i).padStart(2, '0')}`] = file.entries.a1
      writeFileSync(row.path(FILE), `${JSON.stringify(file, null, 2)}\n`)
      const ran = await row.bench([])
      const line = /Obsolete baseline entries/
      const listed = ran.output.split('\n').find((l) => line.test(l)) ?? ''
      const ten = (listed.match(/gone \d\d/g) ?? []).length
      return {
        observed: joined(
          `${exitText(ran)}`,
          `${ten} names listed`,
          `${quote(ran.output, /and \d+ more/)}`,
          `longest line ${longestLine(ran.output)} chars`,
        ),
        held: ran.rc === 0 && ten === 10 && /and 15 more/.test(listed) && longestLine(ran.output) < 1000,
      }
    },
  },
  {
    id: 'stale-tmp-removed',
    family: 'baseline writes',
    does: 'a stale `.a.bench.ts.json.<uuid>.tmp` (1 MB, an hour old) in __llm_baselines__, then `-u`',
    expects: 'exit 0 and no .tmp file left in the folder',
    run: async (row) => {
      const failed = await recorded(row)
      if (failed) return { observed: failed, held: false }
      const stale = row.path(`${DIR}/.a.bench.ts.json.0b1c2d3e-4f50-4617-8829-3a4b5c6d7e8f.tmp`)
      writeFileSync(stale, Buffer.alloc(1 << 20, 0x7b))
      const hourAgo = new Date(Date.now() - 3_600_000)
      utimesSync(stale, hourAgo, hourAgo)
      const ran = await row.bench(['-u'], { env: FORCE })
      const left = readdirSync(row.path(DIR)).filter((name) => name.endsWith('.tmp'))
      return {
        observed: joined(
          `${exitText(ran)}`,
          `.tmp files left: ${left.length ? left.join(', ') : 'none'}`,
          `${describeLeft(await row.left())}`,
        ),
        held: ran.rc === 0 && left.length === 0,
      }
    },
  },
]
