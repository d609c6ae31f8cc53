import type { TestProject } from 'vitest/node'
import { ServerPool } from '../core/server/index.ts'
import { resolveSimulatorOptions, simulatorSpecOf } from '../sim/options.ts'
import { startResolvedSimulator } from '../sim/server.ts'
import { busyMachineNotice } from '../core/telemetry/index.ts'
import { PROVIDED_KEY, type LlmBenchProvided } from '../bench/provided.ts'
import { SHARED_SERVER } from './shared-server.ts'
import { SIMULATOR_SERVER_NAME } from '../core/contract/simulator-name.ts'

/** Set on `globalThis` once the busy-machine line was considered for this run. */
const BUSY_SAID = Symbol.for('vitest-llm-bench.busy-machine-said')

/** What the shared server's start hands every project: what to provide, and how to stop it. */
interface SharedStart {
  /** The shared server's URL and name, as bench files receive them. */
  provided: Required<Pick<LlmBenchProvided, 'serverUrl' | 'server'>>
  /** Stops the server (the simulator closed, a launched server stopped with its process group). */
  close: () => Promise<void>
}

/** The shared server of this process, while any project's setup holds it. */
interface SharedHolding {
  /** The spec it was started from: another spec gets its own server. */
  spec: typeof SHARED_SERVER.spec
  started: Promise<SharedStart>
  /** Setups that received it and have not torn down. */
  holders: number
}

/** Set on `globalThis`: the setup module can be loaded more than once in one process. */
const SHARED_HOLDING = Symbol.for('vitest-llm-bench.shared-server-holding')

async function startShared(spec: typeof SHARED_SERVER.spec): Promise<SharedStart> {
  if (spec === undefined || spec.kind === 'simulator') {
    const resolved = resolveSimulatorOptions(spec?.options ?? {})
    const sim = await startResolvedSimulator(resolved)
    const server = { name: SIMULATOR_SERVER_NAME, simulator: simulatorSpecOf(resolved) }
    return { provided: { serverUrl: sim.url, server }, close: () => sim.close() }
  }
  const pool = new ServerPool({ idleTimeoutMs: Number.POSITIVE_INFINITY })
  const running = await pool.acquire(spec)
  return {
    provided: {
      serverUrl: running.baseUrl,
      server: { name: running.name, ...(running.launch ? { launch: running.launch } : {}) },
    },
    close: () => pool.stopAll(),
  }
}

/**
 * Says in one line when the machine is already busy, then starts the one server shared by every bench file that
 * names none (the plugin's `server`, or the built-in simulator), and stops it when the run ends. Once per process:
 * Vitest 5 runs this setup twice in a config without projects, and a second vLLM on the same GPU would not fit.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const spec = SHARED_SERVER.spec
  const before = project.getProvidedContext()[PROVIDED_KEY] ?? { update: 'new', ci: false }
  // Before anything of ours runs: a busy machine is said up front, in one line, with what it means. Once per run.
  const said = globalThis as { [BUSY_SAID]?: true }
  if (said[BUSY_SAID] === undefined) {
    said[BUSY_SAID] = true
    const busy = await busyMachineNotice()
    if (busy !== undefined) console.warn(busy)
  }
  const registry = globalThis as { [SHARED_HOLDING]?: SharedHolding }
  let holding = registry[SHARED_HOLDING]
  if (holding === undefined || holding.spec !== spec) {
    holding = { spec, started: startShared(spec), holders: 0 }
    registry[SHARED_HOLDING] = holding
  }
  const held = holding
  held.holders++
  let shared: SharedStart
  try {
    shared = await held.started
  } catch (error) {
    held.holders--
    if (registry[SHARED_HOLDING] === held) delete registry[SHARED_HOLDING]
    throw error
  }
  project.provide(PROVIDED_KEY, { ...before, ...shared.provided })
  let released = false
  return async () => {
    if (released) return
    released = true
    held.holders--
    if (held.holders > 0) return
    if (registry[SHARED_HOLDING] === held) delete registry[SHARED_HOLDING]
    await shared.close()
  }
}
