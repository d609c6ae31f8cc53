import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, onTestFinished, test } from 'vitest'

const HOOKS = pathToFileURL(join(import.meta.dirname, '../../src/core/server/shutdown-hooks.ts')).href

describe('watchParent', () => {
  test('a process whose parent is killed notices within about a second', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'llm-parent-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const marker = join(dir, 'gone')
    // The grandchild watches its parent (the child) and writes when it is adopted; the child is then SIGKILLed.
    const grandchild = `import { watchParent } from ${JSON.stringify(HOOKS)}; import { writeFileSync } from 'node:fs'; watchParent(() => { writeFileSync(${JSON.stringify(marker)}, String(Date.now())); process.exit(0) }); setTimeout(() => process.exit(1), 10000); process.stdout.write('ready')`
    const child = spawn(
      process.execPath,
      [
        '-e',
        `const c = require('node:child_process').spawn(process.execPath, ['--input-type=module', '-e', ${JSON.stringify(grandchild)}], { stdio: ['ignore', 'pipe', 'inherit'] }); c.stdout.on('data', () => process.stdout.write('ready')); setInterval(() => {}, 1000)`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()))
    const killedAt = Date.now()
    child.kill('SIGKILL')
    let noticed: number | undefined
    for (let i = 0; i < 50 && noticed === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      noticed = await readFile(marker, 'utf8').then(Number, () => undefined)
    }
    expect(noticed).toBeDefined()
    expect((noticed ?? 0) - killedAt).toBeLessThan(2_500)
  }, 15_000)
})
