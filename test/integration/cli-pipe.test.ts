// The CLI's output read by a reader that goes away (`vitest-llm-bench diff a b | head -3`): the command goes on to
// its end and exits with its own status, with no EPIPE stack trace on stderr.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'

const repo = fileURLToPath(new URL('../..', import.meta.url))
// Writes the help 200 times (more than a pipe holds), so that writes meet the closed pipe, then exits 0.
const CLI =
  `import { processCliIo, runCli } from ${JSON.stringify(join(repo, 'src', 'cli.ts'))}\n` +
  'const io = processCliIo()\n' +
  "for (let i = 0; i < 200; i++) await runCli(['help'], io)\n" +
  'await new Promise((resolve) => setTimeout(resolve, 200))\n' +
  "process.stderr.write('finished\\n')\n"

describe('CLI output into a closed pipe', () => {
  test('the command finishes and exits 0, nothing but its own words on stderr', async () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CLI], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    // The reader reads one chunk and goes away, as `head` does.
    child.stdout.once('data', () => child.stdout.destroy())
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(stderr).not.toMatch(/EPIPE|Error/)
    expect(stderr).toContain('finished')
    expect(code).toBe(0)
  }, 30_000)
})
