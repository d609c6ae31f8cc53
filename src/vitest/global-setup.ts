import type { TestProject } from 'vitest/node'
import { ServerPool } from '../core/server/index.ts'
import { startSimulator } from '../sim/index.ts'
import { busyMachineNotice } from '../core/telemetry/index.ts'
import { PROVIDED_KEY } from '../bench/provided.ts'
import { SHARED_SERVER } from './shared-server.ts'
import { SIMULATOR_SERVER_NAME } from '../core/contract/simulator-name.ts'

/** Set on `globalThis` once the busy-machine line was considered for this run. */
const BUSY_SAID = Symbol.for('vitest-llm-bench.busy-machine-said')

/**
 * Says in one line when the machine is already busy, then starts the one server shared by every bench file that
 * names none (the plugin's `server`, or the built-in simulator), and stops it when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const spec = SHARED_SERVER.spec
  const before = project.getProvidedContext()[PROVIDED_KEY] ?? { update: 'new', ci: false }
  // Before anything of ours runs: a busy machine is said up front, in one line, with what it means. Once per run:
  // a config without projects runs this setup twice under Vitest 5.
  const said = globalThis as { [BUSY_SAID]?: true }
  if (said[BUSY_SAID] === undefined) {
    said[BUSY_SAID] = true
    const busy = await busyMachineNotice()
    if (busy !== undefined) console.warn(busy)
  }
  if (spec === undefined || spec.kind === 'simulator') {
    const sim = await startSimulator(spec?.options ?? {})
    project.provide(PROVIDED_KEY, { ...before, serverUrl: sim.url, server: { name: SIMULATOR_SERVER_NAME } })
    return () => sim.close()
  }
  const pool = new ServerPool({ idleTimeoutMs: Number.POSITIVE_INFINITY })
  const running = await pool.acquire(spec)
  project.provide(PROVIDED_KEY, {
    ...before,
    serverUrl: running.baseUrl,
    server: { name: running.name, ...(running.launch ? { launch: running.launch } : {}) },
  })
  return () => pool.stopAll()
}
