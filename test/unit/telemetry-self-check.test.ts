/** The self-check: what counts as a disturbed machine or client, and the CPU other processes use. */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { busyMachineNotice, selfCheckOf, startHostLoad } from '../../src/core/telemetry/index.ts'

const quietClient = { keptUp: true }

describe('selfCheckOf', () => {
  test('a quiet machine and client: nothing disturbed', () => {
    expect(
      selfCheckOf({ cores: 2, loadAverage1m: 2.1, otherCores: 0.1, stealShare: 0 }, quietClient).disturbed,
    ).toEqual([])
  })

  test('each threshold names what disturbed the run', () => {
    const check = selfCheckOf(
      { cores: 2, loadAverage1m: 5, otherCores: 1.9, stealShare: 0.08 },
      {
        keptUp: false,
        eventLoopDelayMs: { p50: 10, p99: 45, max: 80 },
        generatorLagMs: { p50: 3, p99: 40, max: 90 },
        lateness: {
          watchedRequests: 100,
          lateRequests: 40,
          share: 0.4,
          thresholdMs: 5,
          p50Ms: 3,
          p99Ms: 60,
          maxMs: 70,
        },
      },
    )
    expect(check.disturbed).toEqual([
      'other processes used 1.9 of 2 cores',
      'the hypervisor took 8.0 % of the CPU (steal)',
      "the client's event loop was held up (delay p99 45 ms)",
      'the client fell behind its schedule (lag p99 40 ms)',
    ])
    expect(check).toMatchObject({ eventLoopDelayP99Ms: 45, lateShare: 0.4 })
  })

  test('the busiest other processes are named in the disturbance', () => {
    const check = selfCheckOf(
      {
        cores: 2,
        loadAverage1m: 3,
        otherCores: 0.93,
        busiestOthers: [
          { pid: 41, command: 'deno', cores: 0.61 },
          { pid: 7, command: 'cc1plus', cores: 0.2 },
        ],
      },
      quietClient,
    )
    expect(check.disturbed).toEqual([
      'other processes used 0.9 of 2 cores (busiest: deno pid 41 0.61, cc1plus pid 7 0.20)',
    ])
  })
})

describe.runIf(existsSync('/proc/stat'))('startHostLoad', () => {
  test('a busy process beside us counts as other cores; a server on this machine we did not launch leaves otherCores out', async () => {
    // Its own process group (detached), as a launched server has.
    const hog = spawn(process.execPath, ['-e', 'const end = Date.now() + 1500; while (Date.now() < end) {}'], {
      stdio: 'ignore',
      detached: true,
    })
    try {
      await new Promise((resolve) => setTimeout(resolve, 100))
      // Three watches over the same window: the hog counts as other work unless it is the launched server.
      const watch = startHostLoad()
      const unknown = startHostLoad({ localUnknownServer: true })
      const asServer = startHostLoad({ serverPgid: hog.pid as number })
      await new Promise((resolve) => setTimeout(resolve, 800))
      const load = watch.stop()
      const server = asServer.stop()
      expect(load.otherCores).toBeGreaterThan(0.5)
      // The hog is named by its command, with about the core it spun; not when it is the server.
      expect(load.busiestOthers?.[0]).toMatchObject({ pid: hog.pid, command: expect.stringMatching(/node/) })
      expect(load.busiestOthers?.[0]?.cores).toBeGreaterThan(0.5)
      expect(server.busiestOthers?.some((p) => p.pid === hog.pid) ?? false).toBe(false)
      expect(unknown.stop().otherCores).toBeUndefined()
      expect((load.otherCores ?? 0) - (server.otherCores ?? 0)).toBeGreaterThan(0.3)
    } finally {
      hog.kill('SIGKILL')
    }
  })
})

describe.runIf(existsSync('/proc/stat'))('busyMachineNotice', () => {
  test('a busy process before the run starts: one line naming it, what it means and what to do', async () => {
    const hog = spawn(process.execPath, ['-e', 'const end = Date.now() + 1500; while (Date.now() < end) {}'], {
      stdio: 'ignore',
    })
    try {
      await new Promise((resolve) => setTimeout(resolve, 100))
      const notice = await busyMachineNotice(800)
      expect(notice).toMatch(/^vitest-llm-bench: this machine is busy before the run starts \(other processes used /)
      expect(notice).toContain(`pid ${hog.pid}`)
      expect(notice).toContain('Baselines recorded now are provisional')
      expect(notice).toContain('`npx vitest-llm-bench ab`')
      expect(notice).not.toContain('\n')
    } finally {
      hog.kill('SIGKILL')
    }
  })
})

describe.runIf(existsSync('/proc/stat'))('startHostLoad withAncestors', () => {
  test('the processes that started this one (npx, npm exec) count as ours, not as other work', async () => {
    const module = new URL('../../src/core/telemetry/host-load.ts', import.meta.url).href
    // Two watches over one window in a child whose parent spins, as `npm exec` does while a run starts.
    const child = `import(${JSON.stringify(module)}).then(async (m) => {
      const mine = m.startHostLoad({ withAncestors: true }), all = m.startHostLoad()
      await new Promise((resolve) => setTimeout(resolve, 800))
      const a = mine.stop(), b = all.stop()
      console.log(JSON.stringify({ ours: a.otherCores, all: b.otherCores, named: (a.busiestOthers ?? []).map((p) => p.pid) }))
    })`
    const parent = [
      `const { spawn } = require('node:child_process')`,
      `spawn(process.execPath, ['--input-type=module', '-e', ${JSON.stringify(child)}], { stdio: 'inherit' })`,
      `const end = Date.now() + 2000; while (Date.now() < end) {}`,
    ].join('\n')
    const run = spawn(process.execPath, ['-e', parent], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    run.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    await new Promise((resolve) => run.once('close', resolve))
    const seen = JSON.parse(out) as { ours: number; all: number; named: number[] }
    // The spinning parent is in the plain watch's other work and not in the one that counts it as ours.
    expect(seen.all - seen.ours).toBeGreaterThan(0.2)
    expect(seen.named).not.toContain(run.pid)
  })
})

describe('machineSpeedChange and calibrateCpu', () => {
  test('a machine more than 15 % slower than at recording is named; faster, within 15 %, or without a figure, nothing', async () => {
    const { machineSpeedChange, calibrateCpu } = await import('../../src/core/telemetry/index.ts')
    const at = (cpuCalibrationMs: number) => ({ cores: 2, loadAverage1m: 1, disturbed: [], cpuCalibrationMs })
    expect(machineSpeedChange(at(40), at(50))).toBe(
      'this machine ran 25 % slower than when the baseline was recorded (a fixed CPU loop took 50.0 ms, against 40.0 ms when it was recorded)',
    )
    // A faster machine does not excuse a slower server.
    expect(machineSpeedChange(at(50), at(40))).toBeUndefined()
    expect(machineSpeedChange(at(40), at(45))).toBeUndefined()
    expect(machineSpeedChange(undefined, at(43))).toBeUndefined()
    expect(calibrateCpu()).toBeGreaterThan(0)
  })
})
