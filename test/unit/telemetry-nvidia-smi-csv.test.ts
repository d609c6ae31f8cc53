import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { LineBuffer } from '../../src/core/telemetry/line-buffer.ts'
import {
  parseCsvRow,
  parseCudaVersion,
  parseInventoryRow,
  parseSampleRow,
  SAMPLE_FIELDS,
} from '../../src/core/telemetry/nvidia-smi-csv.ts'
import { parseGpuSelection, selectGpus } from '../../src/core/telemetry/gpu-selection.ts'
import { classifyNvidiaSmiFailure } from '../../src/core/telemetry/nvidia-smi.ts'

const fixture = (name: string) => readFileSync(new URL(`../fixtures/nvidia-smi/${name}`, import.meta.url), 'utf8')

describe('nvidia-smi CSV rows', () => {
  test('parses a sample row of the documented format', () => {
    expect(
      parseSampleRow(
        '2026/11/29 16:10:00.123, 0, NVIDIA H200, GPU-5f0b1c2d-8a9e-4b3c-9d1e-0123456789ab, 1234, 143771, 35, 123.45',
      ),
    ).toEqual({
      timestamp: '2026/11/29 16:10:00.123',
      index: 0,
      name: 'NVIDIA H200',
      uuid: 'GPU-5f0b1c2d-8a9e-4b3c-9d1e-0123456789ab',
      memoryUsedMiB: 1234,
      memoryTotalMiB: 143771,
      utilizationPct: 35,
      powerW: 123.45,
    })
  })

  test('[N/A], [Not Supported] and other bracketed values become undefined', () => {
    const row = parseSampleRow(
      '2026/11/29 16:10:00.123, 3, NVIDIA A100-SXM4-80GB MIG, GPU-aa, [N/A], 81920, [Not Supported], [Unknown Error]',
    )
    expect(row).toMatchObject({ index: 3, name: 'NVIDIA A100-SXM4-80GB MIG', memoryTotalMiB: 81920 })
    expect(row?.memoryUsedMiB).toBeUndefined()
    expect(row?.utilizationPct).toBeUndefined()
    expect(row?.powerW).toBeUndefined()
  })

  test('the two-GPU fixture parses, the second GPU without power', () => {
    const rows = fixture('query-gpu-sample.csv')
      .split('\n')
      .map(parseSampleRow)
      .filter((r) => r !== undefined)
    expect(rows.map((r) => [r.index, r.memoryUsedMiB, r.powerW])).toEqual([
      [0, 800, 70],
      [1, 400, undefined],
    ])
  })

  test('an error message printed instead of data is not a row', () => {
    expect(parseSampleRow('Unable to determine the device handle for GPU0000:18:00.0: Unknown Error')).toBeUndefined()
    expect(parseSampleRow(fixture('driver-error.txt'))).toBeUndefined()
    expect(parseSampleRow('')).toBeUndefined()
    expect(parseSampleRow('2026/11/29 16:10:00.123, x, NVIDIA H200, GPU-1, 1, 2, 3, 4')).toBeUndefined()
  })

  test('a GPU name containing a comma is folded back into the name column', () => {
    const row = parseCsvRow('2026/11/29 16:10:00.123, 0, Weird, GPU Name, GPU-1, 1, 2, 3, 4', SAMPLE_FIELDS)
    expect(row?.name).toBe('Weird, GPU Name')
    expect(row?.uuid).toBe('GPU-1')
    expect(row?.['power.draw']).toBe('4')
  })

  test('inventory rows carry total memory and driver version', () => {
    const rows = fixture('query-gpu-inventory.csv')
      .split('\n')
      .map(parseInventoryRow)
      .filter((r) => r !== undefined)
    expect(rows).toEqual([
      {
        index: 0,
        name: 'NVIDIA H200',
        uuid: 'GPU-5f0b1c2d-8a9e-4b3c-9d1e-0123456789ab',
        memoryTotalMiB: 143771,
        driverVersion: '550.54.15',
      },
      {
        index: 1,
        name: 'NVIDIA H200',
        uuid: 'GPU-7a6b5c4d-3e2f-4a1b-8c9d-fedcba987654',
        memoryTotalMiB: 143771,
        driverVersion: '550.54.15',
      },
    ])
  })

  test('the CUDA version is read from the banner, --version, -q and the newer UMD label', () => {
    expect(parseCudaVersion(fixture('banner.txt'))).toBe('12.4')
    expect(parseCudaVersion(fixture('version.txt'))).toBe('12.4')
    expect(parseCudaVersion('CUDA Version                              : 11.0')).toBe('11.0')
    expect(parseCudaVersion('CUDA UMD Version                          : 13.1')).toBe('13.1')
    expect(parseCudaVersion('nothing here')).toBeUndefined()
  })
})

describe('LineBuffer', () => {
  test('hands out only complete lines; a line split across writes is joined', () => {
    const lines = new LineBuffer()
    expect(
      lines.push('2026/11/29 16:10:00.123, 0, NVIDIA H200, GPU-a, 1, 2, 3, 4\n2026/11/29 16:10:00.123, 1, NVIDIA H'),
    ).toEqual(['2026/11/29 16:10:00.123, 0, NVIDIA H200, GPU-a, 1, 2, 3, 4'])
    expect(lines.push('200, GPU-b, 5, 6, ')).toEqual([])
    expect(lines.push('7, [N/A]\r\n')).toEqual(['2026/11/29 16:10:00.123, 1, NVIDIA H200, GPU-b, 5, 6, 7, [N/A]'])
    expect(lines.push('tail without newline')).toEqual([])
    expect(lines.flush()).toEqual(['tail without newline'])
    expect(lines.flush()).toEqual([])
  })
})

describe('GPU selection', () => {
  const gpus = [
    { index: 0, uuid: 'GPU-5f0b1c2d-8a9e' },
    { index: 1, uuid: 'GPU-7a6b5c4d-3e2f' },
    { index: 2, uuid: 'GPU-99aa' },
  ]

  test('CUDA_VISIBLE_DEVICES indices and UUID prefixes select GPUs in nvidia-smi order', () => {
    expect(selectGpus(gpus, parseGpuSelection('2,0')).selected.map((g) => g.index)).toEqual([0, 2])
    expect(selectGpus(gpus, parseGpuSelection('GPU-7a6b')).selected.map((g) => g.index)).toEqual([1])
    expect(selectGpus(gpus, parseGpuSelection([1, 'gpu-99AA'])).selected.map((g) => g.index)).toEqual([1, 2])
  })

  test('unset or empty means every GPU; parsing stops at the first invalid entry as CUDA does', () => {
    expect(parseGpuSelection(undefined)).toBeUndefined()
    expect(parseGpuSelection('')).toBeUndefined()
    expect(parseGpuSelection('0,-1,2')).toEqual([{ index: 0 }])
    expect(parseGpuSelection('1,bogus,2')).toEqual([{ index: 1 }])
  })

  test('entries matching no GPU are reported', () => {
    expect(selectGpus(gpus, parseGpuSelection('0,7,MIG-1234'))).toEqual({
      selected: [gpus[0]],
      unmatched: ['7', 'mig-1234'],
    })
  })
})

describe('nvidia-smi failures', () => {
  test('each failure has its reason and one line that says what to check', () => {
    expect(classifyNvidiaSmiFailure('nvidia-smi', { errorCode: 'ENOENT' })).toMatchObject({
      reason: 'not-found',
      message: expect.stringContaining('LLM_BENCH_NVIDIA_SMI'),
    })
    expect(classifyNvidiaSmiFailure('nvidia-smi', { exitCode: 9, output: fixture('driver-error.txt') })).toMatchObject({
      reason: 'no-driver',
    })
    expect(classifyNvidiaSmiFailure('nvidia-smi', { exitCode: 6, output: 'No devices were found' })).toMatchObject({
      reason: 'no-devices',
    })
    expect(classifyNvidiaSmiFailure('nvidia-smi', { timedOut: true, timeoutMs: 500 }).message).toContain('500 ms')
    const other = classifyNvidiaSmiFailure('nvidia-smi', {
      exitCode: 2,
      output: '\nField "x" is not a valid field to query.\n',
    })
    expect(other).toEqual({
      reason: 'failed',
      message: 'nvidia-smi failed (exit code 2): Field "x" is not a valid field to query.',
    })
    for (const failure of [other]) expect(failure.message).not.toContain('\n')
  })
})
