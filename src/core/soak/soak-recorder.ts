import type { GpuTelemetry, SoakResult, SoakWindow } from '../contract/result.ts'
import type { RequestRecord } from '../contract/request-record.ts'
import type { ServerMetrics } from '../contract/server-metrics.ts'
import type { HostLoadWatch } from '../telemetry/index.ts'
import type { ResolvedSoak } from './soak-options.ts'
import { waitForRecovery, type RecoveryProbes } from './soak-recovery.ts'
import { judgeSoak } from './soak-verdict.ts'
import { formatSoakWindow } from './format-soak.ts'
import { SoakWindows, soakWindowsWithGauges, type GaugeSamples, type SoakGauges } from './soak-windows.ts'

/** What a soak reads at its end besides its own windows. */
export interface SoakFinish {
  /** The run's GPU telemetry (its samples are on the requests' clock). */
  gpu: GpuTelemetry | undefined
  /** The run's server metrics (its gauge series count from the first scrape, taken right before the load). */
  server: ServerMetrics | undefined
  requests: { total: number; failed: number }
  /** How to read GPU memory and the server's gauges after the load. */
  probes: Omit<RecoveryProbes, 'gpuMemoryBeforeMiB' | 'gpuMemoryEndMiB'>
  signal?: AbortSignal
}

/** Each GPU's samples of one field, on the soak's clock (ms from its origin). */
function gpuSeries(gpu: GpuTelemetry | undefined, origin: number, field: 'memoryUsedMiB' | 'powerW'): GaugeSamples[] {
  if (!gpu) return []
  const indices = new Set(gpu.gpus.map((g) => g.index))
  return [...indices].map((index) => {
    const samples = gpu.samples.filter((s) => s.index === index)
    return { t: samples.map((s) => s.t - origin), values: samples.map((s) => s[field]) }
  })
}

function sumOf(values: ReadonlyArray<number | undefined>): number | undefined {
  const known = values.filter((v): v is number => v !== undefined)
  return known.length === 0 ? undefined : known.reduce((a, b) => a + b, 0)
}

/**
 * A soak while it runs: each finished request into its window, and what other work did on the
 * machine per window (a new host-load watch at each window's end). {@link finish} adds the GPU and
 * server gauges, waits for the recovery, and judges.
 */
export class SoakRecorder {
  readonly #soak: ResolvedSoak
  readonly #windows: SoakWindows
  readonly #watchHost: () => HostLoadWatch
  readonly #count: number
  #timer: ReturnType<typeof setTimeout> | undefined
  #watch: HostLoadWatch | undefined
  #closed = 0

  readonly #onWindow: ((line: string) => void) | undefined

  /**
   * @param watchHost Starts a host-load watch (the run's, with its server's process group left out).
   * @param onWindow Called with one line of figures as each window closes.
   */
  constructor(soak: ResolvedSoak, watchHost: () => HostLoadWatch, onWindow?: (line: string) => void) {
    this.#onWindow = onWindow
    this.#soak = soak
    this.#count = Math.floor(soak.durationMs / soak.windowMs)
    this.#windows = new SoakWindows(soak.windowMs, this.#count)
    this.#watchHost = watchHost
  }

  /** The load starts now (`performance.now()` ms): windows count from here. */
  start(origin: number): void {
    if (this.#windows.origin !== undefined) return
    this.#windows.start(origin)
    this.#watch = this.#watchHost()
    this.#schedule()
  }

  #schedule(): void {
    const origin = this.#windows.origin
    if (origin === undefined || this.#closed >= this.#count) return
    const due = origin + (this.#closed + 1) * this.#soak.windowMs
    this.#timer = setTimeout(() => this.#closeWindow(), Math.max(0, due - performance.now()))
    // A soak's timer never keeps a process alive on its own.
    this.#timer.unref?.()
  }

  #closeWindow(): void {
    const load = this.#watch?.stop()
    if (load) {
      this.#windows.setHostLoad(this.#closed, {
        ...(load.otherCores !== undefined ? { otherCores: load.otherCores } : {}),
        ...(load.stealShare !== undefined ? { stealShare: load.stealShare } : {}),
      })
    }
    const closed = this.#windows.windowAt(this.#closed)
    if (closed) this.#onWindow?.(formatSoakWindow(closed, this.#closed, this.#count))
    this.#closed++
    this.#watch = this.#closed < this.#count ? this.#watchHost() : undefined
    this.#schedule()
  }

  /** A measured request finished. */
  add(record: RequestRecord): void {
    this.#windows.add(record)
  }

  /** Stops the window timer (idempotent); a window still open gets no host figures. */
  stop(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
  }

  /** The windows with their gauges, the recovery after the load, and the verdict. */
  async finish(finish: SoakFinish): Promise<SoakResult> {
    this.stop()
    const origin = this.#windows.origin ?? 0
    const series = finish.server?.series
    const gauges: SoakGauges = {
      gpuMemoryMiB: gpuSeries(finish.gpu, origin, 'memoryUsedMiB'),
      gpuPowerW: gpuSeries(finish.gpu, origin, 'powerW'),
      ...(series ? { kvCacheUsage: { t: series.t, values: series.kvCacheUsage } } : {}),
      ...(series ? { requestsWaiting: { t: series.t, values: series.requestsWaiting } } : {}),
    }
    const windows: SoakWindow[] = soakWindowsWithGauges(this.#windows.finish(), gauges)
    const gpus = finish.gpu?.gpus ?? []
    const recovery = await waitForRecovery(
      this.#soak.recovery,
      {
        ...finish.probes,
        ...optional('gpuMemoryBeforeMiB', sumOf(gpus.map((g) => g.memoryBeforeMiB))),
        ...optional('gpuMemoryEndMiB', sumOf(gpus.map((g) => g.memoryAfterMiB))),
      },
      finish.signal,
    )
    return judgeSoak(this.#soak, windows, finish.requests, recovery)
  }
}

function optional<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>)
}
