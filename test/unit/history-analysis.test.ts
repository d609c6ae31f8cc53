import { describe, expect, test } from 'vitest'
import { baselineEntryFrom, type BaselineEntry } from '../../src/core/baseline/index.ts'
import { studentTTwoSidedP } from '../../src/core/verdict/special-functions.ts'
import { benchFileOf, historiesOfBaselines, withKeptResults } from '../../src/core/history/bench-histories.ts'
import type { KeptResult } from '../../src/core/history/results-folder.ts'
import type { BaselineFileHistory } from '../../src/core/history/git-baselines.ts'
import { analyseHistory } from '../../src/core/history/history-analysis.ts'
import { environment, lognormalSamples, makeResult, seededRandom } from '../helpers/baseline-fixtures.ts'

const SAMPLES = lognormalSamples(seededRandom(3), 100, 100, 0.2)

function entry(scale: number, gpu?: string): BaselineEntry {
  const result = makeResult({
    ttftMs: SAMPLES.map((v) => v * scale),
    environment: environment(gpu ? { gpu } : {}),
  })
  return baselineEntryFrom(result, { recordedAt: '2026-11-01T00:00:00Z' })
}

/** A baseline file's history built in memory: one version per entry map, a day apart. */
function fileHistory(versions: ReadonlyArray<Record<string, BaselineEntry>>): BaselineFileHistory {
  return {
    path: 'benches/__llm_baselines__/chat.bench.ts.json',
    skipped: [],
    versions: versions.map((entries, i) => ({
      sha: `${i}`.padStart(40, '0'),
      commit: `c${i + 1}`,
      date: `2026-11-${String(i + 1).padStart(2, '0')}T00:00:00Z`,
      subject: `commit ${i + 1}`,
      path: 'benches/__llm_baselines__/chat.bench.ts.json',
      file: { schemaVersion: 1, entries },
    })),
  }
}

const NOISE = [1, 1.01, 0.99, 1.02, 0.985, 1.005, 0.995, 1.01]

describe('bench histories from baseline versions', () => {
  test('a new GPU is a machine boundary: the 30 % step across it is no change point', () => {
    const versions = NOISE.map((noise, i) => ({
      chat: i < 4 ? entry(noise) : entry(noise * 0.7, 'NVIDIA H200'),
    }))
    const [history] = historiesOfBaselines([fileHistory(versions)])
    const analysis = analyseHistory(history!)
    expect(analysis.boundaries).toEqual([
      { index: 4, machine: ['GPU NVIDIA A100-SXM4-80GB -> NVIDIA H200'], software: [], config: [] },
    ])
    expect(analysis.changePoints).toEqual([])
    // Without the split, the same series has a change point at the new GPU.
    const joined = {
      ...history!,
      points: history!.points.map((p) => ({ ...p, fingerprint: history!.points[0]!.fingerprint })),
    }
    expect(analyseHistory(joined).changePoints.some((cp) => cp.index === 4 && cp.figure === 'ttftP50')).toBe(true)
  })

  test('a commit that leaves an entry unchanged is no point of it; another machine is a lane of its own', () => {
    const a = entry(1)
    const h200 = entry(0.7, 'NVIDIA H200')
    const [first, second] = [entry(1.01), entry(0.72, 'NVIDIA H200')]
    const versions: Array<Record<string, BaselineEntry>> = [
      { chat: a },
      { chat: a, other: a },
      { chat: { ...a, otherMachines: [h200] } },
      { chat: { ...first, otherMachines: [second] } },
    ]
    const histories = historiesOfBaselines([fileHistory(versions)])
    const lanes = histories.map(
      (h) => `${h.name}${h.machine ? ` @ ${h.machine}` : ''}: ${h.points.map((p) => p.commit).join(' ')}`,
    )
    expect(lanes).toEqual([
      'chat: c1 c4',
      'chat @ GPU NVIDIA H200 x 1 (driver 550.54.15), CPU AMD EPYC 9654, node 24: c3 c4',
      'other: c2',
    ])
  })

  test('kept runs with no baseline make one series of their own, in time order', () => {
    const run = (day: string, scale: number): KeptResult => ({
      file: 'benches/new.bench.ts',
      name: 'new bench',
      resultsFile: `runs/${day}/results.json`,
      result: { ...makeResult({ ttftMs: SAMPLES.map((v) => v * scale) }), startedAt: `2026-11-${day}T00:00:00Z` },
    })
    const histories = withKeptResults([], [run('03', 1.1), run('01', 1)], '/repo', '/repo/app')
    expect(histories).toHaveLength(1)
    expect(histories[0]?.benchFile).toBe('app/benches/new.bench.ts')
    expect(histories[0]?.points.map((p) => [p.source, p.resultsFile])).toEqual([
      ['results', 'runs/01/results.json'],
      ['results', 'runs/03/results.json'],
    ])
  })

  test('a bench file is named from its baseline path', () => {
    expect(benchFileOf('benches/__llm_baselines__/chat.bench.ts.json')).toBe('benches/chat.bench.ts')
    expect(benchFileOf('__llm_baselines__/a.bench.ts.json')).toBe('a.bench.ts')
    expect(benchFileOf('custom/a.json')).toBe('custom/a.json')
  })

  test("Student's t two-sided p-values match the tables", () => {
    expect(studentTTwoSidedP(2.228, 10)).toBeCloseTo(0.05, 3)
    expect(studentTTwoSidedP(-4.587, 10)).toBeCloseTo(0.001, 4)
    expect(studentTTwoSidedP(0, 5)).toBe(1)
  })
})
