import type { SoakRecovery } from '../contract/result.ts'
import type { ResolvedSoak } from './soak-options.ts'
import { abortableSleep } from '../platform/abortable-sleep.ts'

/** The server's gauges as one scrape read them; undefined where the server has no such gauge. */
export interface ServerGauges {
  requestsRunning?: number
  requestsWaiting?: number
  kvCacheUsage?: number
}

/** How to read what must come back after a soak; a probe left out is not checked. */
export interface RecoveryProbes {
  /** GPU memory before the load and at its end, MiB, summed over the GPUs measured. */
  gpuMemoryBeforeMiB?: number
  gpuMemoryEndMiB?: number
  /** Reads GPU memory used now (summed); undefined when nvidia-smi did not answer. */
  readGpuMemoryMiB?: () => Promise<number | undefined>
  /** Scrapes the server's gauges now; undefined when the scrape failed. */
  readGauges?: () => Promise<ServerGauges | undefined>
}

/** Time between reads while waiting, ms. */
const POLL_MS = 1000
/** KV-cache usage at or below this share is idle (a prefix cache may keep a block or two). */
const IDLE_KV_USAGE = 0.01

function idle(gauges: ServerGauges): boolean {
  return (
    (gauges.requestsRunning ?? 0) === 0 &&
    (gauges.requestsWaiting ?? 0) === 0 &&
    (gauges.kvCacheUsage ?? 0) <= IDLE_KV_USAGE
  )
}

/**
 * After a soak's load: reads GPU memory and the server's gauges until both are back (memory within the
 * margin of where it was before the load; no request running or waiting, KV cache empty) or `withinMs`
 * passed. Undefined when there is nothing to read (no GPU telemetry, no server metrics).
 */
export async function waitForRecovery(
  settings: ResolvedSoak['recovery'],
  probes: RecoveryProbes,
  signal?: AbortSignal,
): Promise<SoakRecovery | undefined> {
  const memoryProbe = probes.gpuMemoryBeforeMiB !== undefined ? probes.readGpuMemoryMiB : undefined
  const gaugeProbe = probes.readGauges
  if (!memoryProbe && !gaugeProbe) return undefined
  const { withinMs, gpuMemoryMarginMiB } = settings
  const start = performance.now()
  let memoryAfter: number | undefined
  let gauges: ServerGauges | undefined
  let memoryBackAt: number | undefined
  let gaugesBackAt: number | undefined
  for (;;) {
    const elapsed = performance.now() - start
    if (memoryProbe && memoryBackAt === undefined) {
      memoryAfter = (await memoryProbe()) ?? memoryAfter
      const limit = (probes.gpuMemoryBeforeMiB ?? 0) + gpuMemoryMarginMiB
      if (memoryAfter !== undefined && memoryAfter <= limit) memoryBackAt = elapsed
    }
    if (gaugeProbe && gaugesBackAt === undefined) {
      gauges = (await gaugeProbe()) ?? gauges
      if (gauges && idle(gauges)) gaugesBackAt = elapsed
    }
    const memoryDone = !memoryProbe || memoryBackAt !== undefined
    const gaugesDone = !gaugeProbe || gaugesBackAt !== undefined
    if ((memoryDone && gaugesDone) || elapsed >= withinMs || signal?.aborted) break
    await abortableSleep(Math.min(POLL_MS, Math.max(0, withinMs - elapsed)), signal)
  }
  const failures: string[] = []
  const seconds = `${(withinMs / 1000).toFixed(0)} s`
  if (memoryProbe && memoryBackAt === undefined) {
    const after = memoryAfter === undefined ? 'unread' : `${memoryAfter.toFixed(0)} MiB`
    failures.push(
      `GPU memory did not come back within ${seconds} of the load: ${after} against ${probes.gpuMemoryBeforeMiB} MiB ` +
        `before it (margin ${gpuMemoryMarginMiB} MiB): KV cache not released, or a leak`,
    )
  }
  if (gaugeProbe && gaugesBackAt === undefined) {
    const shown = gauges
      ? `${gauges.requestsRunning ?? '-'} running, ${gauges.requestsWaiting ?? '-'} waiting, KV cache ` +
        `${gauges.kvCacheUsage === undefined ? '-' : `${(gauges.kvCacheUsage * 100).toFixed(1)} %`}`
      : 'no scrape answered'
    failures.push(`the server was not idle ${seconds} after the load: ${shown}`)
  }
  return {
    ...(probes.gpuMemoryBeforeMiB !== undefined ? { gpuMemoryBeforeMiB: probes.gpuMemoryBeforeMiB } : {}),
    ...(probes.gpuMemoryEndMiB !== undefined ? { gpuMemoryEndMiB: probes.gpuMemoryEndMiB } : {}),
    ...(memoryAfter !== undefined ? { gpuMemoryAfterMiB: memoryAfter } : {}),
    ...(memoryProbe ? { gpuMemoryReturnedAfterMs: memoryBackAt === undefined ? null : Math.round(memoryBackAt) } : {}),
    ...(gauges?.requestsRunning !== undefined ? { requestsRunning: gauges.requestsRunning } : {}),
    ...(gauges?.requestsWaiting !== undefined ? { requestsWaiting: gauges.requestsWaiting } : {}),
    ...(gauges?.kvCacheUsage !== undefined ? { kvCacheUsage: gauges.kvCacheUsage } : {}),
    ...(gaugeProbe ? { gaugesReturnedAfterMs: gaugesBackAt === undefined ? null : Math.round(gaugesBackAt) } : {}),
    withinMs,
    gpuMemoryMarginMiB,
    verdict: failures.length > 0 ? 'fail' : 'pass',
    failures,
  }
}
