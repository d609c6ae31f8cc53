import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, onTestFinished, test } from 'vitest'
import { listenerOf, processGroupOf } from '../../src/core/telemetry/index.ts'

describe.runIf(existsSync('/proc/net/tcp'))('listenerOf', () => {
  test('finds the process listening on a port: this one, or a server started beside it; nothing on a free port', async () => {
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())))
    const own = (server.address() as AddressInfo).port
    expect(listenerOf(own)).toEqual({ pid: process.pid, pgid: processGroupOf(process.pid) })

    // A server in a process group of its own, as one started by hand is.
    const child = spawn(
      process.execPath,
      [
        '-e',
        "const s = require('node:http').createServer(); s.listen(0, '127.0.0.1', () => console.log(s.address().port))",
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], detached: true },
    )
    onTestFinished(() => void child.kill('SIGKILL'))
    const port = await new Promise<number>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(Number(d))))
    expect(listenerOf(port)).toEqual({ pid: child.pid, pgid: child.pid })

    server.close()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(listenerOf(own)).toBeUndefined()
  })
})
