// The real llama-server of the rows that need one: its bench options, and finding its process.
import { symlinkSync } from 'node:fs'
import { processesOf } from '../processes.ts'
import { sleep } from './observe.ts'
import type { RowRun } from './row.ts'

/**
 * `llamaCpp({...})` text for the row's build. The model is linked into the row's folder, so the server's command
 * line names the folder and the row's process scan finds it.
 */
export function llamaServer(row: RowRun, args: string[], extra = ''): string {
  const build = row.ctx.llama
  if (!build) throw new Error('no llama-server build (run `npm exec -- node scripts/llama/build.ts`)')
  symlinkSync(build.modelPath, row.path('model.gguf'))
  const list = args.map((a) => `'${a}'`).join(', ')
  const fields = [`bin: '${build.serverPath}'`, `modelPath: '${row.path('model.gguf')}'`, `args: [${list}]`]
  return `llamaCpp({ ${[...fields, ...(extra ? [extra] : [])].join(', ')} })`
}

/** Waits up to `withinMs` for the row's llama-server; its PID, or undefined. */
export async function llamaPid(row: RowRun, withinMs: number): Promise<number | undefined> {
  const deadline = performance.now() + withinMs
  while (performance.now() < deadline) {
    const found = processesOf(row.marker, row.dir, row.ctx.hogs).find((p) => p.args.includes('llama-server'))
    if (found) return found.pid
    await sleep(100)
  }
  return undefined
}

/** Waits until `output()` matches `pattern` or `withinMs` passes; whether it matched. */
export async function waitFor(output: () => string, pattern: RegExp, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs
  while (performance.now() < deadline) {
    if (pattern.test(output())) return true
    await sleep(50)
  }
  return false
}
