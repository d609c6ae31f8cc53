import type { RunContext } from '../core/run.ts'
import { ServerPool } from '../core/server/index.ts'
import type { RunningServer, ServerSpec } from '../core/server/index.ts'
import type { TargetOptions } from '../core/contract/options.ts'
import { startResolvedSimulator } from '../sim/server.ts'
import { resolveSimulatorOptions, simulatorSpecOf, type ResolvedSimulatorOptions } from '../sim/options.ts'
import type { BenchServer } from './bench-options.ts'
import { SIMULATOR_SERVER_NAME } from '../core/contract/simulator-name.ts'

/** A target ready for `runBenchmark`, and how to let go of it afterwards. */
export interface AcquiredTarget {
  target: TargetOptions
  context: RunContext
  /** A launched server that ended on its own: how, and its last log lines; undefined while it runs (and for other targets). */
  serverEnded(): ServerEnded | undefined
  /** Starts a launched server afresh (the target then has its new address); undefined for targets this bench did not launch. */
  restart?: () => Promise<AcquiredTarget>
  release(): Promise<void>
}

/** How a launched server ended during a bench. */
export interface ServerEnded {
  /** The server's name (`llama.cpp`, `vllm`, a command). */
  name: string
  /** `exited with code 1`, `was killed by SIGKILL`. */
  how: string
  /** Its last log lines, secrets redacted. */
  logTail: string[]
  logPath: string | undefined
}

/** A server that ended as lines: how it ended (`llama.cpp was killed by SIGKILL`), then its log's last lines. */
export function endedLines(ended: ServerEnded): [string, ...string[]] {
  const { name, how, logTail, logPath } = ended
  return [
    `${name} ${how}`,
    ...(logTail.length > 0
      ? [`Last lines of its log${logPath ? ` (${logPath})` : ''}:`, ...logTail.map((line) => `  ${line}`)]
      : []),
  ]
}

/** Lines of a dead server's log quoted in the failure. */
const ENDED_LOG_LINES = 15
const stillRunning = (): undefined => undefined

// Consecutive benches of one file that name the same launch config share its server: it stops
// a few seconds after the last of them (and in any case when the process exits).
const pool = new ServerPool({ idleTimeoutMs: 5_000 })
// A side-by-side comparison starts every trial's server afresh and stops it before the next arm's
// starts: two vLLM servers at once would not fit one GPU's memory.
const freshPool = new ServerPool({ idleTimeoutMs: 0 })

/**
 * Resolves where a bench sends its load, in order: `target.baseUrl`, the bench's `server`, the
 * plugin's shared server, else a built-in simulator started for this bench alone.
 */
export async function acquireTarget(
  server: BenchServer | undefined,
  target: Partial<TargetOptions> | undefined,
  shared: { url?: string; server?: RunContext['server'] } | undefined,
  options: {
    fresh?: boolean
    /**
     * The pool a launched server comes from, instead of the shared or the fresh one: arms kept up
     * together each take their own, so that two arms with the same spec (an A/A comparison) get two servers.
     */
    pool?: ServerPool
    /** The simulator's options as the bench's plan resolved them; resolved here from `server` when not given. */
    simulator?: ResolvedSimulatorOptions
  } = {},
): Promise<AcquiredTarget> {
  const noop = async () => {}
  if (target?.baseUrl) {
    return { target: { ...target, baseUrl: target.baseUrl }, context: {}, serverEnded: stillRunning, release: noop }
  }
  if (server?.kind === 'simulator' || (server === undefined && !shared?.url)) {
    const resolved = options.simulator ?? resolveSimulatorOptions(server?.kind === 'simulator' ? server.options : {})
    const sim = await startResolvedSimulator(resolved)
    return {
      target: { ...target, baseUrl: sim.url },
      context: { skipGpu: true, server: { name: SIMULATOR_SERVER_NAME, simulator: simulatorSpecOf(resolved) } },
      serverEnded: stillRunning,
      release: () => sim.close(),
    }
  }
  if (server === undefined) {
    return {
      target: { ...target, baseUrl: shared?.url as string },
      context: { server: shared?.server },
      serverEnded: stillRunning,
      release: noop,
    }
  }
  const from = options.pool ?? (options.fresh ? freshPool : pool)
  return launched(server, target, await from.acquire(server), from)
}

function launched(
  server: ServerSpec,
  target: Partial<TargetOptions> | undefined,
  running: RunningServer,
  from: ServerPool,
): AcquiredTarget {
  const model = target?.model ?? running.model
  return {
    target: {
      ...target,
      baseUrl: running.baseUrl,
      ...(model ? { model } : {}),
      ...(running.apiKey && !target?.apiKey ? { apiKey: running.apiKey } : {}),
    },
    context: {
      server: { name: running.name, ...(running.launch ? { launch: running.launch } : {}) },
      ...(running.pid !== undefined ? { serverPgid: running.pid } : {}),
      ...(server.kind === 'launch' && server.env?.CUDA_VISIBLE_DEVICES
        ? { gpus: server.env.CUDA_VISIBLE_DEVICES }
        : {}),
    },
    serverEnded: () => {
      const how = running.exitedOnItsOwn
      return how === undefined
        ? undefined
        : { name: running.name, how, logTail: running.logTail(ENDED_LOG_LINES), logPath: running.logPath }
    },
    ...(running.owned ? { restart: async () => launched(server, target, await from.restart(server), from) } : {}),
    release: () => from.release(running),
  }
}
