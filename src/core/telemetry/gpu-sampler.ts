import { execa } from 'execa'
import type { GpuSample, GpuStats, GpuTelemetry } from '../contract/result.ts'
import { computeGpuStats, type GpuIdentity } from './gpu-stats.ts'
import { parseGpuSelection, selectGpus, type GpuSelection } from './gpu-selection.ts'
import { LineBuffer } from './line-buffer.ts'
import { parseSampleRow, SAMPLE_FIELDS, type NvidiaSmiSampleRow } from './nvidia-smi-csv.ts'
import {
  classifyNvidiaSmiFailure,
  DEFAULT_NVIDIA_SMI_TIMEOUT_MS,
  resolveNvidiaSmi,
  runNvidiaSmi,
  type NvidiaSmiOptions,
} from './nvidia-smi.ts'

/** Options of {@link startGpuSampler}. */
export interface GpuSamplerOptions {
  /** Sampling interval in milliseconds, passed to `nvidia-smi -lms`. Default 200. */
  intervalMs?: number
  /** GPUs to report. Default: `$CUDA_VISIBLE_DEVICES` of this process, else every GPU. */
  gpus?: GpuSelection
  /** Path or name of nvidia-smi. Default: `$LLM_BENCH_NVIDIA_SMI`, else `nvidia-smi` on PATH. */
  nvidiaSmi?: string
  /** How long nvidia-smi may take to print its first sample before it is killed, ms. Default 15000. */
  firstSampleTimeoutMs?: number
  /** Limit of the one-shot before/after queries, ms. Default 15000. */
  queryTimeoutMs?: number
}

/** Options of {@link GpuSampler.stop}. */
export interface GpuSamplerStopOptions {
  /** All output tokens of the measured phase; gives joules per output token. */
  outputTokens?: number
  /** End of the measured phase (`performance.now()` ms). Default: now. */
  at?: number
  /** Start of the measured phase (`performance.now()` ms), e.g. the first measured dispatch. Default: the time given to `markLoadStart`. */
  startAt?: number
}

/**
 * A running nvidia-smi sampler. Start it before the warm-up, mark the load start right before the
 * first measured request, stop it after the last one: the statistics cover exactly that window.
 */
export interface GpuSampler {
  /** False when nvidia-smi is missing, has no driver, or hung; {@link note} says why. */
  readonly available: boolean
  /** One line for humans when telemetry is missing or partial, else undefined. */
  readonly note: string | undefined
  /** Sample rows received so far (all GPUs). */
  readonly sampleCount: number
  /** Marks the start of the measured phase (default: now) and records memory used before it. */
  markLoadStart(at?: number): Promise<void>
  /** GPU memory used now per GPU index, MiB, from a one-shot query (after the load: has it come back?); empty when it failed. */
  memoryUsedNow(): Promise<Map<number, number>>
  /**
   * Ends the window, stops nvidia-smi (after one more sample, so the window's end is covered),
   * records memory used after the load, and summarises. When the sampler was unavailable, `gpus` and
   * `samples` are empty and `note` is the one line that says why (leave `gpu` out of the result
   * then). Only the first call does the work; later calls return the same telemetry.
   */
  stop(options?: GpuSamplerStopOptions): Promise<GpuTelemetry>
}

const DEFAULT_INTERVAL_MS = 200

/**
 * Starts one long-running `nvidia-smi --query-gpu=... -lms <interval>` and resolves once its first
 * sample arrived. Never rejects: without nvidia-smi or a driver, or when nvidia-smi prints nothing
 * in time (it is then killed), the sampler is `available: false` with a one-line {@link GpuSampler.note}.
 *
 * Each row is stamped with `performance.now()` when it is received, and those times are what energy
 * is integrated over. nvidia-smi's own `timestamp` column is wall-clock local time (steps with NTP
 * and DST, millisecond text, another clock than the requests'), so it could neither be compared with
 * the measured window nor integrated safely; it is kept only for diagnosis. nvidia-smi flushes each
 * row, so receipt lags the sample by a pipe hop; if rows ever arrive in bursts, the note says so.
 */
export async function startGpuSampler(options: GpuSamplerOptions = {}): Promise<GpuSampler> {
  const intervalMs = Math.max(1, Math.round(options.intervalMs ?? DEFAULT_INTERVAL_MS))
  const bin = resolveNvidiaSmi(options.nvidiaSmi)
  const query: NvidiaSmiOptions = { nvidiaSmi: bin, timeoutMs: options.queryTimeoutMs ?? DEFAULT_NVIDIA_SMI_TIMEOUT_MS }
  const firstSampleTimeoutMs = options.firstSampleTimeoutMs ?? DEFAULT_NVIDIA_SMI_TIMEOUT_MS
  const selection = options.gpus ?? (typeof process !== 'undefined' ? process.env.CUDA_VISIBLE_DEVICES : undefined)

  const samples: GpuSample[] = []
  const identities = new Map<number, GpuIdentity>()
  const lines = new LineBuffer()
  let stderr = ''
  let stdoutText = ''
  let firstBadLine: string | undefined
  let onSample: (() => void) | undefined

  const subprocess = execa(
    bin,
    [`--query-gpu=${SAMPLE_FIELDS.join(',')}`, '--format=csv,noheader,nounits', '-lms', String(intervalMs)],
    {
      reject: false,
      buffer: false,
      stdin: 'ignore',
      encoding: 'utf8',
      forceKillAfterDelay: 2000,
    },
  )
  let exited = false
  const exit = subprocess.then((result) => {
    exited = true
    return result
  })

  const receive = (chunk: string): void => {
    const t = performance.now()
    if (stdoutText.length < 4096) stdoutText += chunk
    for (const line of lines.push(chunk)) {
      const row = parseSampleRow(line)
      if (row === undefined) {
        if (line.trim() !== '') firstBadLine ??= line.trim()
        continue
      }
      identities.set(row.index, {
        index: row.index,
        name: row.name,
        uuid: row.uuid,
        memoryTotalMiB: row.memoryTotalMiB,
      })
      samples.push(toSample(row, t))
      onSample?.()
    }
  }
  subprocess.stdout?.setEncoding('utf8')
  subprocess.stdout?.on('data', receive)
  subprocess.stderr?.setEncoding('utf8')
  subprocess.stderr?.on('data', (chunk: string) => {
    if (stderr.length < 4096) stderr += chunk
  })

  const nextSample = (timeoutMs: number, ready: () => boolean): Promise<boolean> =>
    new Promise((resolve) => {
      if (ready()) return resolve(true)
      let settled = false
      const timer = setTimeout(() => done(false), timeoutMs)
      const done = (value: boolean): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        onSample = undefined
        resolve(value)
      }
      onSample = () => {
        if (ready()) done(true)
      }
      void exit.then(() => done(ready()))
    })

  const started = await nextSample(firstSampleTimeoutMs, () => samples.length > 0)
  if (!started) {
    const silent = !exited
    if (silent) subprocess.kill('SIGKILL')
    const result = await exit
    const failure = classifyNvidiaSmiFailure(bin, {
      errorCode: (result as { code?: string }).code,
      exitCode: result.exitCode,
      timedOut: silent,
      timeoutMs: firstSampleTimeoutMs,
      output: `${stdoutText}\n${stderr}`,
    })
    return unavailableSampler(intervalMs, `No GPU telemetry: ${failure.message}.`)
  }

  let loadStartAt = Number.NEGATIVE_INFINITY
  let memoryBefore = new Map<number, number>()
  let stopped: Promise<GpuTelemetry> | undefined

  const sampler: GpuSampler = {
    available: true,
    note: undefined,
    get sampleCount() {
      return samples.length
    },
    memoryUsedNow: () => queryMemoryUsed(query),
    async markLoadStart(at?: number): Promise<void> {
      loadStartAt = at ?? performance.now()
      memoryBefore = await queryMemoryUsed(query)
    },
    stop(stopOptions: GpuSamplerStopOptions = {}): Promise<GpuTelemetry> {
      stopped ??= finish(stopOptions)
      return stopped
    },
  }

  async function finish(stopOptions: GpuSamplerStopOptions): Promise<GpuTelemetry> {
    const endAt = stopOptions.at ?? performance.now()
    let stoppedByUs = false
    if (!exited) {
      // One sample of every GPU at or after the end lets the integral reach the window's edge.
      const known = [...identities.keys()]
      await nextSample(2 * intervalMs + 1000, () => known.every((index) => hasSampleSince(samples, index, endAt)))
      if (!exited) {
        stoppedByUs = true
        subprocess.kill('SIGTERM')
      }
    }
    const result = await exit
    const diedEarly = !stoppedByUs
    // A row cut short by our own SIGTERM is noise; an unterminated line from a dying nvidia-smi may say why.
    const rest = lines.flush()
    if (!stoppedByUs) for (const line of rest) receive(`${line}\n`)
    const memoryAfter = await queryMemoryUsed(query)

    const notes: string[] = []
    const { selected, unmatched } = selectGpus(
      [...identities.values()].sort((a, b) => a.index - b.index),
      parseGpuSelection(selection),
    )
    let reported = selected
    if (unmatched.length > 0 && selected.length === 0) {
      reported = [...identities.values()].sort((a, b) => a.index - b.index)
      notes.push(`GPU selection ${JSON.stringify(selection)} matched no GPU nvidia-smi reports; every GPU is reported`)
    } else if (unmatched.length > 0) {
      notes.push(`GPU selection entries ${unmatched.join(', ')} matched no GPU nvidia-smi reports`)
    }
    if (diedEarly) {
      const failure = classifyNvidiaSmiFailure(bin, {
        exitCode: result.exitCode,
        output: `${firstBadLine ?? ''}\n${stderr}`,
      })
      notes.push(`nvidia-smi stopped during the run (${failure.message}); GPU figures cover only part of it`)
    } else if (firstBadLine !== undefined) {
      notes.push(`nvidia-smi printed an unexpected line: ${firstBadLine}`)
    }
    const indices = new Set(reported.map((gpu) => gpu.index))
    const kept = samples.filter((s) => indices.has(s.index))
    if (arrivedInBursts(kept, intervalMs))
      notes.push('nvidia-smi rows arrived in bursts (buffered output?); sample times and energy are approximate')

    const window = { startAt: stopOptions.startAt ?? loadStartAt, endAt }
    const gpus: GpuStats[] = reported.map((gpu) =>
      computeGpuStats(gpu, kept, window, {
        memoryBeforeMiB: memoryBefore.get(gpu.index) ?? lastMemoryAtOrBefore(kept, gpu.index, window.startAt),
        memoryAfterMiB: memoryAfter.get(gpu.index) ?? lastMemoryAtOrBefore(kept, gpu.index, Number.POSITIVE_INFINITY),
        outputTokens: stopOptions.outputTokens,
      }),
    )
    const telemetry: GpuTelemetry = { intervalMs, gpus, samples: kept }
    if (notes.length > 0) telemetry.note = `${notes.join('; ')}.`
    return telemetry
  }

  return sampler
}

function unavailableSampler(intervalMs: number, note: string): GpuSampler {
  return {
    available: false,
    note,
    sampleCount: 0,
    markLoadStart: () => Promise.resolve(),
    memoryUsedNow: () => Promise.resolve(new Map()),
    stop: () => Promise.resolve({ intervalMs, gpus: [], samples: [], note }),
  }
}

function toSample(row: NvidiaSmiSampleRow, t: number): GpuSample {
  const sample: GpuSample = { t, index: row.index }
  if (row.memoryUsedMiB !== undefined) sample.memoryUsedMiB = row.memoryUsedMiB
  if (row.utilizationPct !== undefined) sample.utilizationPct = row.utilizationPct
  if (row.powerW !== undefined) sample.powerW = row.powerW
  return sample
}

/** Memory used per GPU index from a one-shot query; empty when the query failed. */
async function queryMemoryUsed(options: NvidiaSmiOptions): Promise<Map<number, number>> {
  const outcome = await runNvidiaSmi(
    [`--query-gpu=${SAMPLE_FIELDS.join(',')}`, '--format=csv,noheader,nounits'],
    options,
  )
  const memory = new Map<number, number>()
  if (!outcome.ok) return memory
  for (const line of outcome.stdout.split('\n')) {
    const row = parseSampleRow(line)
    if (row?.memoryUsedMiB !== undefined) memory.set(row.index, row.memoryUsedMiB)
  }
  return memory
}

/** Scans from the newest sample: only the last round can be that recent. */
function hasSampleSince(samples: readonly GpuSample[], index: number, since: number): boolean {
  for (let i = samples.length - 1; i >= 0 && samples[i]!.t >= since; i--) if (samples[i]!.index === index) return true
  return false
}

function lastMemoryAtOrBefore(samples: readonly GpuSample[], index: number, at: number): number | undefined {
  let found: number | undefined
  for (const s of samples) if (s.index === index && s.t <= at && s.memoryUsedMiB !== undefined) found = s.memoryUsedMiB
  return found
}

/** True when more than a quarter of one GPU's consecutive rows came much closer together than the interval. */
function arrivedInBursts(samples: readonly GpuSample[], intervalMs: number): boolean {
  const lastAt = new Map<number, number>()
  let gaps = 0
  let short = 0
  for (const s of samples) {
    const previous = lastAt.get(s.index)
    if (previous !== undefined) {
      gaps++
      if (s.t - previous < intervalMs / 4) short++
    }
    lastAt.set(s.index, s.t)
  }
  return gaps >= 4 && short / gaps > 0.25
}
