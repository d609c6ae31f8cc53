import { StreamingClient, listModels, measureClockOffset, probeStreaming, waitForReady } from './client/index.ts'
import type { ClockOffset } from './client/clock-offset.ts'
import { withModel, withServerName } from './client/target.ts'
import type { StreamingProbeOutcome } from './client/index.ts'
import { OptionsError } from './contract/errors.ts'
import { API_CHOICES, takesInputs } from './contract/api-kinds.ts'
import { connectionsFor, SCHEDULE_LAG_WARN_MS } from './load/index.ts'
import { resolveBenchmark, type BenchmarkPlan } from './plan/index.ts'
import { redactConfig } from './platform/redact.ts'
import {
  calibrateCpu,
  collectEnvironment,
  hostLoadOptionsFor,
  selfCheckOf,
  startGpuSampler,
  startHostLoad,
} from './telemetry/index.ts'
import type { GpuSampler, HostLoadWatch } from './telemetry/index.ts'
import { getServerFacts } from './server/index.ts'
import { REFUSED_FAIL_MS } from './server/server-spec.ts'
import { resolveServerMetricsOptions, ServerMetricsWatch } from './server/metrics/index.ts'
import { scrapeGauges } from './server/metrics/server-metrics-window.ts'
import type { MetricsScraper } from './server/metrics/metrics-scraper.ts'
import type { ApiKind, InputsApi } from './contract/api-kinds.ts'
import type { BenchmarkOptions, Progress, SegmentOptions } from './contract/options.ts'
import type {
  BenchmarkResult,
  ClientHealth,
  ClientLateness,
  EnvironmentInfo,
  GpuTelemetry,
  SegmentInfo,
  StallReport,
  WorkloadFacts,
} from './contract/result.ts'
import type { RequestFailure } from './contract/request-record.ts'
import { createWorkload, resolveWorkloadPaths } from './workload/index.ts'
import type { Workload } from './workload/index.ts'
import { EVENT_LOOP_RESOLUTION_MS, runMeasuredPhase, runWorkers, segmentShare, waitForStart } from './workers/index.ts'
import type { DelaySummary, MeasuredPhase } from './workers/index.ts'
import { SIMULATOR_SERVER_NAME } from './contract/simulator-name.ts'
import { SoakRecorder, type RecoveryProbes } from './soak/index.ts'
import { capitalized, stopText } from './contract/stop-text.ts'

/** Event-loop delay p99 above this many milliseconds means timestamps were taken late. */
const EVENT_LOOP_WARN_MS = 20
/** How long a `target` that answers may take to be ready, ms. */
const TARGET_READY_TIMEOUT_MS = 30_000

/** Launch facts the caller knows (a started server), merged into the environment. */
export interface RunContext {
  server?: EnvironmentInfo['server']
  /** Skip the GPU sampler (e.g. a remote server whose GPUs are not on this host). Default false. */
  skipGpu?: boolean
  /** GPUs the server uses, as `CUDA_VISIBLE_DEVICES` (indices or UUIDs). Default: this process's `CUDA_VISIBLE_DEVICES`, else all. */
  gpus?: string
  /** Process group of a server launched on this machine: its CPU use is not counted as other work in the self-check. */
  serverPgid?: number
  /** Folder that relative workload file paths (`path`, `tokenizer`) resolve from. Default: the working directory; a bench passes its own folder. */
  baseDir?: string
  /** Aborts the run; in-flight requests are cancelled (`BenchmarkOptions.signal`). */
  signal?: AbortSignal
  /** Called after each measured request (`BenchmarkOptions.onProgress`). Must be cheap. */
  onProgress?: (progress: Progress) => void
}

/**
 * Runs one benchmark against an OpenAI-compatible server and returns its {@link BenchmarkResult}.
 * Options are validated before anything is sent; failures of single requests are counted in the
 * result, never thrown. Throws an `LlmBenchError` when the run cannot happen at all.
 */
export async function runBenchmark(options: BenchmarkOptions, context: RunContext = {}): Promise<BenchmarkResult> {
  const { signal, onProgress } = options
  return runPlan(resolveBenchmark(options), {
    ...context,
    ...(signal ? { signal } : {}),
    ...(onProgress ? { onProgress } : {}),
  })
}

/** Runs a benchmark whose options {@link resolveBenchmark} parsed (a bench harness plans once and runs every trial from it). */
export async function runPlan(plan: BenchmarkPlan, context: RunContext = {}): Promise<BenchmarkResult> {
  const { run, config } = plan
  const { signal, onProgress } = context
  const { workers, seed } = run
  const { api } = plan.target
  const workloadOptions = resolveWorkloadPaths(run.workload, context.baseDir)
  const workload = await createWorkload(workloadOptions, { seed, api })
  const workloadFacts = workload.describe()

  const { baseUrl, apiKey } = plan.target
  // The target should already run (a launched server was waited for before this): nothing
  // listening fails in 2 s, a server that answers but is not ready yet gets 30 s.
  await waitForReady(baseUrl, {
    apiKey,
    signal,
    timeoutMs: TARGET_READY_TIMEOUT_MS,
    refusedFailMs: REFUSED_FAIL_MS,
    timeoutOption: '`server: connect(baseUrl, { readyTimeoutMs })` in place of `target`',
  })
  const model = plan.target.model ?? (await discoverModel(baseUrl, apiKey))
  const target = withModel(plan.target, model)

  const [hostEnv, serverFacts] = await Promise.all([
    collectEnvironment({ skipGpu: context.skipGpu, ...(context.gpus ? { gpus: context.gpus } : {}) }),
    getServerFacts(baseUrl, { apiKey: target.apiKey }).catch(() => undefined),
  ])
  // The server is named for what it answers it is; how it was started (connected, docker, …) is reported apart.
  const { name: startedAs, ...launched } = context.server ?? {}
  const name = serverFacts?.name ?? startedAs
  const environment: EnvironmentInfo = {
    ...hostEnv,
    server: { ...serverFacts, model, ...launched, ...(name ? { name } : {}), ...(startedAs ? { startedAs } : {}) },
  }
  // Per-chunk token counts (continuous usage) where the server is known to send them, unless the options decided.
  const clientTarget = withServerName(target, environment.server.name)

  const load = run.load
  const connections = connectionsFor(load, run.workload.kind === 'agentic-trace')
  // With workers, each thread has its own client; this thread only coordinates.
  const shape = run.requestShape
  const client = workers === 1 ? new StreamingClient(clientTarget, { connections, shape }) : undefined
  const sampler = context.skipGpu ? undefined : await startGpuSampler(context.gpus ? { gpus: context.gpus } : {})
  const serverMetrics = await ServerMetricsWatch.start(
    resolveServerMetricsOptions(run.serverMetrics, baseUrl, target.apiKey, target.headers),
  )
  const startedAt = new Date().toISOString()
  const warnings: string[] = []
  let hostLoad: HostLoadWatch | undefined
  // What other work did beside the load is watched with the server's processes left out (set before the load).
  let hostOptions: Parameters<typeof startHostLoad>[0] = {}
  let lastProgress: Progress = { done: 0, total: undefined, elapsedMs: 0, outputTokens: 0 }
  const soak = run.soak
    ? new SoakRecorder(
        run.soak,
        () => startHostLoad(hostOptions),
        (line) => onProgress?.({ ...lastProgress, soakWindow: line }),
      )
    : undefined
  const share = run.segment ? segmentShare(load, run.warmup, seed, workload.timestampsMs, run.segment) : undefined
  // Every host of a segmented run reads the one server's clock, so the merge can put their origins on it.
  const clock = run.segment
    ? await measureClockOffset(baseUrl, { apiKey: target.apiKey, headers: target.headers, signal })
    : undefined
  const beforeLoad = async () => {
    // Every host of a segmented run starts its measured load at the same wall-clock time.
    if (run.segment?.startAtMs !== undefined) await waitForStart(run.segment.startAtMs, signal)
    hostOptions = hostLoadOptionsFor({
      baseUrl,
      ...(context.serverPgid !== undefined ? { serverPgid: context.serverPgid } : {}),
      inProcess: context.server?.name === SIMULATOR_SERVER_NAME,
    })
    hostLoad = startHostLoad(hostOptions)
    await serverMetrics.beforeLoad()
    await sampler?.markLoadStart()
    soak?.start(performance.now())
  }

  try {
    // Before anything is sent: the loop must not compete with the load.
    const cpuCalibrationMs = calibrateCpu()
    // Scrapes around the probe's first request, the run's first: what it found cached, an earlier
    // run left (a second attempt could hit the first one's blocks).
    await serverMetrics.beforeProbe()
    const probe = await probeServerStreaming(
      client ?? new StreamingClient(clientTarget, { connections: 1, shape }),
      workload,
      signal,
      client === undefined,
      (attempt) => serverMetrics.onProbeAttempt(attempt),
    )
    if (probe.notServed !== undefined) throw notServedError(probe.notServed, clientTarget.api)
    await serverMetrics.afterProbe()
    const phase: MeasuredPhase = client
      ? await runMeasuredPhase({
          client,
          api,
          workload,
          load: share?.load ?? load,
          seed,
          warmup: share ? share.warmup : run.warmup,
          signal,
          recordRequests: run.recordRequests,
          goodput: run.goodput,
          timestampsMs: share ? share.timestampsMs : workload.timestampsMs,
          ...(share ? { indexOf: share.indexOf } : {}),
          beforeLoad,
          onProgress: soak
            ? (progress, record) => {
                lastProgress = progress
                if (record) soak.add(record)
                onProgress?.(progress)
              }
            : onProgress,
          stallTimeoutMs: clientTarget.stallTimeoutMs,
          ...(run.stopWhen ? { stopWhen: run.stopWhen } : {}),
        })
      : await runWorkers({
          workers,
          target: clientTarget,
          workload: workloadOptions,
          shape,
          salt: saltOf(workloadFacts),
          load,
          warmup: run.warmup,
          seed,
          recordRequests: run.recordRequests,
          goodput: run.goodput,
          signal,
          beforeLoad,
          onProgress,
        })
    const { accumulator, outcome, timeline } = phase
    const host = hostLoad?.stop()
    await serverMetrics.afterLoad(phase.stall !== undefined)
    warnings.push(...outcome.warnings)

    const durationMs = Math.max(0, outcome.endedAt - outcome.startedAt)
    const metrics = accumulator.finish({ durationMs, cost: run.cost, serverBuffers: probe.serverBuffers })
    warnings.push(...metrics.warnings)
    if (phase.stall) warnings.push(stallWarning(phase.stall, metrics.counts.completed))
    if (phase.stopped) warnings.push(`${capitalized(stopText(phase.stopped))}.`)
    // The energy window is the measured window exactly (durationMs), not the sampler's own start and stop.
    const { outputTokensTotal } = metrics
    const gpu = await sampler?.stop({
      outputTokens: outputTokensTotal,
      startAt: outcome.startedAt,
      at: outcome.endedAt,
    })

    const health = clientHealth(
      outcome.scheduleLagMs,
      outcome.generatorLagMs,
      phase.eventLoopDelayMs,
      metrics.lateness,
      generatorLagLimitMs(load),
    )
    const client_: ClientHealth = host ? { ...health, selfCheck: selfCheckOf(host, health, cpuCalibrationMs) } : health
    warnings.push(...client_.warnings)
    const shortfall = outputShortfall(workloadFacts, metrics.metrics.outputTokens.mean, metrics.counts.completed)
    if (shortfall) warnings.push(shortfall)
    if (gpu?.note) warnings.push(gpu.note)
    const { server, warnings: serverNotes } = serverMetrics.part(metrics.metrics.ttftMs)
    warnings.push(...serverNotes)

    const soakResult = await soak?.finish({
      gpu,
      server: server?.metrics,
      requests: { total: metrics.counts.total, failed: metrics.counts.failed },
      probes: recoveryProbes(sampler, gpu, serverMetrics.scraper),
      ...(signal ? { signal } : {}),
    })
    const result: BenchmarkResult = {
      schemaVersion: 2,
      startedAt,
      durationMs,
      counts: metrics.counts,
      metrics: metrics.metrics,
      throughput: metrics.throughput,
      errors: metrics.errors,
      streaming: { ...metrics.streaming, probeRequests: probe.requests },
      ...(metrics.goodput ? { goodput: metrics.goodput } : {}),
      ...(metrics.cost ? { cost: metrics.cost } : {}),
      client: client_,
      workload: {
        ...workloadFacts,
        actualOutputTokensMean: metrics.metrics.outputTokens.mean,
        actualInputTokensMean: metrics.metrics.inputTokens.mean,
      },
      environment,
      config: redactConfig({ ...config, target: { ...(config.target as object), baseUrl, model, api } }),
      histograms: metrics.histograms,
      ...(timeline ? { timeline } : {}),
      ...(gpu && gpu.gpus.length > 0 ? { gpu } : {}),
      ...(server ? { server } : {}),
      ...(metrics.requests ? { requests: metrics.requests } : {}),
      ...(phase.sessions ? { sessions: phase.sessions.finish(durationMs) } : {}),
      ...(run.segment ? { segment: segmentInfo(run.segment, seed, outcome.originAt, clock) } : {}),
      ...(phase.stall ? { stall: phase.stall } : {}),
      ...(soakResult ? { soak: soakResult } : {}),
      ...(phase.stopped ? { stopped: phase.stopped } : {}),
      warnings,
    }
    return result
  } finally {
    soak?.stop()
    serverMetrics.stop()
    await sampler?.stop({ outputTokens: 0 }).catch(() => undefined)
    await client?.close()
  }
}

/** How a soak reads GPU memory (the GPUs the run measured, summed) and the server's gauges after its load. */
function recoveryProbes(
  sampler: GpuSampler | undefined,
  gpu: GpuTelemetry | undefined,
  scraper: MetricsScraper | undefined,
): RecoveryProbes {
  const indices = gpu?.gpus.map((g) => g.index) ?? []
  return {
    ...(sampler?.available && indices.length > 0
      ? {
          readGpuMemoryMiB: async () => {
            const used = await sampler.memoryUsedNow()
            const values = indices.map((index) => used.get(index))
            return values.every((v) => v !== undefined) ? values.reduce((a, b) => a + b, 0) : undefined
          },
        }
      : {}),
    ...(scraper ? { readGauges: async () => scrapeGauges(await scraper.scrape(), scraper.names) } : {}),
  }
}

/** The run's own line about a stall (the bench's failure says it again, with what to do). */
function stallWarning(stall: StallReport, measured: number): string {
  return `The server stopped answering: no byte from any of the ${stall.inFlight} requests in flight for ${Math.round(stall.silentMs / 1000)} s (target.stallTimeoutMs ${stall.stallTimeoutMs} ms); the run was stopped, and the ${measured} requests that completed before are measured.`
}

/** How a server is made to serve the embeddings and rerank APIs, for the error when one does not. */
const INPUT_API_SERVERS: Readonly<Record<InputsApi, string>> = {
  embeddings: 'llama-server serves it when started with `--embeddings`; vLLM with an embedding model',
  rerank: 'llama-server serves it when started with `--reranking`; vLLM with a reranking (cross-encoder) model',
}

/**
 * The run's first request was answered 404, 405 or 501: every request of the load would be, so
 * nothing is sent after it. The server's own message says whether the endpoint or the model is missing.
 */
function notServedError(failure: RequestFailure, api: ApiKind): OptionsError {
  const how = takesInputs(api) ? ` (${INPUT_API_SERVERS[api]})` : ''
  return new OptionsError(
    'target.api',
    `the server does not serve this request: the run's first request (target.api '${api}') got ${failure.message.replace(/ Check .*$/, '')} No request was measured`,
    `Use an API the server serves${how} (${API_CHOICES}), or check target.baseUrl and target.model.`,
  )
}

/** Index of the first probe request: far from the warm-up's negative indices, so its prompt is its own. */
const PROBE_INDEX = -1_000_000

/** The idle streaming probe (before warm-up, nothing else in flight); `close` the client afterwards when it was made for it. */
async function probeServerStreaming(
  client: StreamingClient,
  workload: Workload,
  signal: AbortSignal | undefined,
  close: boolean,
  beforeAttempt: (attempt: number) => Promise<void>,
): Promise<StreamingProbeOutcome> {
  try {
    return await probeStreaming(async (attempt) => {
      await beforeAttempt(attempt)
      const index = PROBE_INDEX - attempt
      return client.send(workload.next(index), { index, ...(signal ? { signal } : {}) })
    })
  } finally {
    if (close) await client.close()
  }
}

async function discoverModel(baseUrl: string, apiKey: string | undefined): Promise<string> {
  const models = await listModels(baseUrl, { apiKey })
  const first = models[0]
  if (!first) {
    throw new OptionsError(
      'target.model',
      `${baseUrl}/v1/models lists no model`,
      'Set `target.model` to the served model name.',
    )
  }
  return first.id
}

/** The workload's salt, passed to worker threads so they build the same prompts. */
function saltOf(facts: WorkloadFacts): string | undefined {
  return facts.salt ?? undefined
}

/** Share of the mean gap between planned sends that the sends may lag before the server saw another load. */
const LAG_SHARE_OF_GAP = 0.1

/**
 * Generator lag p99 above which the client did not keep up, ms: 5 ms, or a tenth of the mean gap
 * between planned sends when that is longer. A send 7 ms late in a Poisson schedule of 8 req/s
 * (125 ms apart) leaves the load the server saw as it was; on llama-server on 2 cores such lag
 * was common and had turned a real regression (TTFT p50 1.9x) inconclusive.
 */
function generatorLagLimitMs(load: BenchmarkOptions['load']): number {
  const rate = load.rate
  const gap = rate !== undefined && Number.isFinite(rate) && rate > 0 ? 1000 / rate : 0
  return Math.max(SCHEDULE_LAG_WARN_MS, LAG_SHARE_OF_GAP * gap)
}

function clientHealth(
  scheduleLagMs: ClientHealth['scheduleLagMs'],
  generatorLagMs: ClientHealth['scheduleLagMs'],
  eventLoopDelayMs: DelaySummary | undefined,
  lateness: ClientLateness | undefined,
  lagLimitMs: number,
): ClientHealth {
  // runLoad already warns about generator lag; here it only decides whether the client kept up.
  // Generator lag leaves out sends a concurrency cap held back on purpose.
  const warnings: string[] = []
  let keptUp = !(generatorLagMs && generatorLagMs.p99 > lagLimitMs)
  // monitorEventLoopDelay's floor is its resolution (10 ms); only a p99 well beyond it means starvation.
  if (eventLoopDelayMs && eventLoopDelayMs.p99 > EVENT_LOOP_WARN_MS + EVENT_LOOP_RESOLUTION_MS) {
    keptUp = false
    warnings.push(
      `Event-loop delay p99 was ${eventLoopDelayMs.p99.toFixed(1)} ms: timestamps may be late by that much; the client could not keep up.`,
    )
  }
  return {
    ...(scheduleLagMs ? { scheduleLagMs } : {}),
    ...(generatorLagMs ? { generatorLagMs } : {}),
    ...(eventLoopDelayMs ? { eventLoopDelayMs } : {}),
    ...(lateness ? { lateness } : {}),
    keptUp,
    warnings,
  }
}

function outputShortfall(facts: WorkloadFacts, actualMean: number, completed: number): string | undefined {
  const requested = facts.requestedOutputTokensMean
  if (requested === null || completed === 0 || requested <= 0) return undefined
  if (actualMean < requested * 0.95) {
    return `Output was ${((1 - actualMean / requested) * 100).toFixed(0)}% shorter than requested (${actualMean.toFixed(1)} vs ${requested.toFixed(1)} tokens): the model stopped early. Set \`workload.ignoreEos: true\` (vLLM, SGLang) to force the length.`
  }
  return undefined
}

/** What a segment's result says about its slice: the origin on the wall clock (from the monotonic origin), and how late it was. */
function segmentInfo(
  segment: SegmentOptions,
  seed: number,
  originAt: number,
  clock: ClockOffset | { note: string } | undefined,
): SegmentInfo {
  const originEpochMs = performance.timeOrigin + originAt
  const startAtMs = segment.startAtMs ?? null
  const info: SegmentInfo = {
    index: segment.index,
    count: segment.count,
    seed,
    startAtMs,
    originEpochMs,
    startLagMs: startAtMs === null ? null : originEpochMs - startAtMs,
    clock: null,
  }
  if (clock && 'offsetMs' in clock) info.clock = { offsetMs: clock.offsetMs, accuracyMs: clock.accuracyMs }
  else info.clockNote = clock?.note ?? 'not measured'
  return info
}
