import type { RunContext } from '../core/run.ts'
import { ServerPool } from '../core/server/index.ts'
import type { TargetOptions } from '../core/types.ts'
import { startSimulator } from '../sim/index.ts'
import type { BenchServer } from './bench-options.ts'

/** A target ready for `runBenchmark`, and how to let go of it afterwards. */
export interface AcquiredTarget {
  target: TargetOptions
  context: RunContext
  release(): Promise<void>
}

// Consecutive benches of one file that name the same launch config share its server: it stops
// a few seconds after the last of them (and in any case when the process exits).
const pool = new ServerPool({ idleTimeoutMs: 5_000 })

/**
 * Resolves where a bench sends its load, in order: `target.baseUrl`, the bench's `server`, the
 * plugin's shared server, else a built-in simulator started for this bench alone.
 */
export async function acquireTarget(
  server: BenchServer | undefined,
  target: Partial<TargetOptions> | undefined,
  shared: { url?: string; server?: RunContext['server'] } | undefined,
): Promise<AcquiredTarget> {
  const noop = async () => {}
  if (target?.baseUrl) {
    return { target: { ...target, baseUrl: target.baseUrl }, context: {}, release: noop }
  }
  if (server?.kind === 'simulator' || (server === undefined && !shared?.url)) {
    const sim = await startSimulator(server?.kind === 'simulator' ? server.options : {})
    return {
      target: { ...target, baseUrl: sim.url },
      context: { skipGpu: true, server: { name: 'vitest-llm-bench-sim' } },
      release: () => sim.close(),
    }
  }
  if (server === undefined) {
    return { target: { ...target, baseUrl: shared?.url as string }, context: { server: shared?.server }, release: noop }
  }
  const running = await pool.acquire(server)
  const model = target?.model ?? running.model
  return {
    target: { ...target, baseUrl: running.baseUrl, ...(model ? { model } : {}), ...(running.apiKey && !target?.apiKey ? { apiKey: running.apiKey } : {}) },
    context: {
      server: { name: running.name, ...(running.launch ? { launch: running.launch } : {}) },
      ...(server.kind === 'launch' && server.env?.CUDA_VISIBLE_DEVICES ? { gpus: server.env.CUDA_VISIBLE_DEVICES } : {}),
    },
    release: () => pool.release(running),
  }
}
