// What the real nvidia-smi printed on an NVIDIA H200 (driver 580.159.04, CUDA 13.0), recorded by
// scripts/gpu/sampler-check.ts on 2026-11-29: the parsers must read it exactly as the sampler and the
// inventory need it.
import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { LineBuffer } from '../../src/core/telemetry/line-buffer.ts'
import { parseCudaVersion, parseInventoryRow, parseSampleRow } from '../../src/core/telemetry/nvidia-smi-csv.ts'

const recorded = (name: string) => readFileSync(new URL(`../fixtures/nvidia-smi/h200/${name}`, import.meta.url), 'utf8')
const UUID = 'GPU-f26c6486-4f42-22d6-3bd7-ec9c5b664d67'

describe('nvidia-smi output recorded on an H200', () => {
  test('the CUDA version comes from --version and from the banner alike', () => {
    expect(parseCudaVersion(recorded('version.txt'))).toBe('13.0')
    expect(parseCudaVersion(recorded('banner.txt'))).toBe('13.0')
  })

  test('the inventory row', () => {
    const rows = recorded('inventory.csv')
      .split('\n')
      .map(parseInventoryRow)
      .filter((r) => r !== undefined)
    expect(rows).toEqual([
      { index: 0, name: 'NVIDIA H200', uuid: UUID, memoryTotalMiB: 143771, driverVersion: '580.159.04' },
    ])
  })

  test('the one-shot sample row: an idle GPU reports 0 MiB used, 0 % and about 78 W', () => {
    const rows = recorded('sample.csv')
      .split('\n')
      .map(parseSampleRow)
      .filter((r) => r !== undefined)
    expect(rows).toEqual([
      {
        timestamp: '2026/11/29 19:02:00.609',
        index: 0,
        name: 'NVIDIA H200',
        uuid: UUID,
        memoryUsedMiB: 0,
        memoryTotalMiB: 143771,
        utilizationPct: 0,
        powerW: 77.87,
      },
    ])
  })

  test('the -lms 100 loop: every line is a row, about 100 ms apart by its own clock', () => {
    const text = recorded('sample-lms100.csv')
    const lines = new LineBuffer().push(text)
    const rows = lines.map(parseSampleRow)
    expect(rows.length).toBeGreaterThanOrEqual(10)
    expect(
      rows.every((r) => r !== undefined && r.index === 0 && r.powerW !== undefined && r.memoryUsedMiB !== undefined),
    ).toBe(true)
    const ms = rows.map((r) => {
      const [, hh, mm, ss] = /(\d+):(\d+):(\d+\.\d+)$/.exec(r!.timestamp ?? '') ?? []
      return (Number(hh) * 3600 + Number(mm) * 60 + Number(ss)) * 1000
    })
    const gaps = ms.slice(2).map((t, i) => t - ms[i + 1]!)
    for (const gap of gaps) expect(gap).toBeGreaterThan(80)
    for (const gap of gaps) expect(gap).toBeLessThan(130)
  })
})
