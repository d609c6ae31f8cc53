import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest'
import { expectNoProcessesWith, killProcessesWith, processesWith } from '../helpers/processes.ts'

// A separate Node process starts the fake vllm through the library; the test then interrupts that
// process as a terminal or CI runner would, and reads the process table afterwards.
const holdServer = fileURLToPath(new URL('../fixtures/bin/hold-server.ts', import.meta.url))
const logDir = mkdtempSync(path.join(os.tmpdir(), 'llm-bench-signal-logs-'))

let sequence = 0
let marker = ''
let holder: ChildProcess | undefined

beforeEach(() => {
  marker = `fake/signal-${process.pid}-${++sequence}`
})

afterEach(async () => {
  holder?.kill('SIGKILL')
  holder = undefined
  try {
    await expectNoProcessesWith(marker)
  } finally {
    killProcessesWith(marker)
  }
})

afterAll(() => {
  rmSync(logDir, { recursive: true, force: true })
})

interface Held {
  child: ChildProcess
  serverPid: number
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

async function hold(mode: string, after: 'wait' | 'exit', graceMs = 500): Promise<Held> {
  const child = spawn(process.execPath, [holdServer, mode, after, logDir, String(graceMs)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOLD_MARKER: marker },
  })
  holder = child
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  let output = ''
  const serverPid = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const ready = /READY (\d+)/.exec(output)
      if (ready) resolve(Number(ready[1]))
    })
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    void exit.then(() => reject(new Error(`hold-server exited before READY:\n${output}`)))
  })
  return { child, serverPid, exit }
}

describe('no server outlives an interrupted run', () => {
  test('Ctrl-C (SIGINT): the servers stop, then the process ends by SIGINT as it would have', async () => {
    const held = await hold('spawn-child', 'wait')
    expect(processesWith(marker).map((p) => p.pgid)).toEqual([held.serverPid, held.serverPid])
    held.child.kill('SIGINT')
    expect(await held.exit).toEqual({ code: null, signal: 'SIGINT' })
    await expectNoProcessesWith(marker)
  })

  test('SIGTERM to a run whose server ignores SIGTERM: SIGKILL after the grace, then the process ends by SIGTERM', async () => {
    const held = await hold('ignore-term', 'wait')
    expect(processesWith(marker)).toHaveLength(2)
    held.child.kill('SIGTERM')
    expect(await held.exit).toEqual({ code: null, signal: 'SIGTERM' })
    await expectNoProcessesWith(marker)
  })

  test('a second Ctrl-C during a long grace kills everything at once', async () => {
    // With a 10-minute grace, only the second signal can end this within the test timeout.
    const held = await hold('ignore-term', 'wait', 600_000)
    held.child.kill('SIGINT')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(processesWith(marker)).toHaveLength(2)
    held.child.kill('SIGINT')
    expect(await held.exit).toEqual({ code: null, signal: 'SIGINT' })
    await expectNoProcessesWith(marker)
  })

  test('process.exit() without stopping: the exit hook SIGKILLs the group and the exit code stays', async () => {
    const held = await hold('spawn-child', 'exit')
    expect(await held.exit).toEqual({ code: 3, signal: null })
    await expectNoProcessesWith(marker)
  })
})
