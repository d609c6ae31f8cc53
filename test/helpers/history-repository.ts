/**
 * A scratch git repository whose one baseline file is committed once per scripted point: figures
 * and fingerprint chosen by the test, commit dates one day apart, so `history` has a known past.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { execa } from 'execa'
import { baselineEntryFrom, formatBaselineFile } from '../../src/core/baseline/index.ts'
import { environment, lognormalSamples, makeResult, seededRandom } from './baseline-fixtures.ts'

/** One commit of the baseline file. */
export interface ScriptedBaseline {
  /** Factor on every TTFT sample (1: the reference level, median 100 ms). */
  ttftScale: number
  /** Factor on every TPOT sample (median 10 ms). Default 1. */
  tpotScale?: number
  /** The vLLM version the entry was recorded with. Default `0.10.1`. */
  serverVersion?: string
  /** The GPU model. Default the fixtures' A100. */
  gpu?: string
  subject: string
}

/** Where the scratch bench's baseline file lives in the repository. */
export const HISTORY_BASELINE_PATH = 'benches/__llm_baselines__/chat.bench.ts.json'
/** The scratch bench's name. */
export const HISTORY_BENCH_NAME = 'chat 512/128'

/** Runs git in `repo` with a fixed identity and, when given, commit dates. */
export function gitIn(repo: string, args: readonly string[], date?: string) {
  const env = date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {}
  return execa('git', ['-c', 'user.email=history@example.com', '-c', 'user.name=history', ...args], {
    cwd: repo,
    env,
  })
}

/** `git init` in `repo`, then one commit per scripted baseline, the n-th dated 2026-11-n. */
export async function commitBaselineHistory(repo: string, commits: readonly ScriptedBaseline[]): Promise<void> {
  await gitIn(repo, ['init', '-q', '-b', 'main'])
  await mkdir(join(repo, 'benches', '__llm_baselines__'), { recursive: true })
  // The same samples every time, scaled: each figure moves exactly by the scripted factor.
  const ttft = lognormalSamples(seededRandom(7), 200, 100, 0.25)
  const tpot = lognormalSamples(seededRandom(8), 200, 10, 0.1)
  for (const [i, commit] of commits.entries()) {
    const day = String(i + 1).padStart(2, '0')
    const date = `2026-11-${day}T12:00:00Z`
    const result = makeResult({
      ttftMs: ttft.map((value) => value * commit.ttftScale),
      tpotMs: tpot.map((value) => value * (commit.tpotScale ?? 1)),
      e2eMs: ttft.map((value, j) => value * commit.ttftScale + 127 * (tpot[j] ?? 0) * (commit.tpotScale ?? 1)),
      // Fewer tokens a second as requests take longer: the throughput follows the latencies.
      throughput: { outputTokensPerSec: 1066.7 / (0.3 * commit.ttftScale + 0.7 * (commit.tpotScale ?? 1)) },
      environment: environment({
        ...(commit.serverVersion ? { serverVersion: commit.serverVersion } : {}),
        ...(commit.gpu ? { gpu: commit.gpu } : {}),
      }),
    })
    const entry = baselineEntryFrom(result, { recordedAt: date })
    const file = formatBaselineFile({ schemaVersion: 1, entries: { [HISTORY_BENCH_NAME]: entry } })
    await writeFile(join(repo, HISTORY_BASELINE_PATH), file)
    await gitIn(repo, ['add', HISTORY_BASELINE_PATH])
    await gitIn(repo, ['commit', '-q', '-m', commit.subject], date)
  }
}
