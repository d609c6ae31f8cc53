import { randomUUID } from 'node:crypto'
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { LlmBenchError } from '../contract/errors.ts'
import { withFileLock } from '../platform/file-lock.ts'
import type { BaselineEnvironment } from './baseline-environment.ts'

function isNotFound(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ENOENT'
}

function temporaryPrefix(path: string): string {
  return `.${basename(path)}.`
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * {@link BaselineEnvironment} on `node:fs` (Node, Bun and Deno all provide it). An atomic write
 * goes to a temporary file in the target's directory (same file system, so the rename cannot
 * turn into a copy), is flushed to disk, then renamed over the target: a crash leaves the old
 * file or the new one, and at worst a `.<name>.<uuid>.tmp` file, never a truncated baseline.
 * {@link exclusive} holds the lock file `.<name>.lock` beside the target and, holding it, removes
 * such temporary files (only a holder writes them, so any found then belong to one that died).
 */
export class NodeBaselineEnvironment implements BaselineEnvironment {
  async readFile(path: string): Promise<string | null> {
    try {
      return await readFile(path, 'utf8')
    } catch (error) {
      if (isNotFound(error)) return null
      throw new LlmBenchError(`Cannot read baseline file ${path}: ${reason(error)}. Check its permissions.`, {
        cause: error,
      })
    }
  }

  async writeFileAtomic(path: string, content: string): Promise<void> {
    const directory = dirname(path)
    const temporary = join(directory, `${temporaryPrefix(path)}${randomUUID()}.tmp`)
    try {
      await mkdir(directory, { recursive: true })
      const handle = await open(temporary, 'wx')
      try {
        await handle.writeFile(content, 'utf8')
        await handle.sync()
      } finally {
        await handle.close()
      }
      await rename(temporary, path)
    } catch (error) {
      await rm(temporary, { force: true })
      throw new LlmBenchError(
        `Cannot write baseline file ${path}: ${reason(error)}. Check that ${directory} is writable.`,
        { cause: error },
      )
    }
  }

  async removeFile(path: string): Promise<void> {
    await rm(path, { force: true })
  }

  async exclusive<T>(path: string, critical: () => Promise<T>): Promise<T> {
    const directory = dirname(path)
    const lockPath = join(directory, `${temporaryPrefix(path)}lock`)
    try {
      await mkdir(directory, { recursive: true })
    } catch (error) {
      throw new LlmBenchError(
        `Cannot create ${directory} for baseline file ${path}: ${reason(error)}. Check that it is writable.`,
        { cause: error },
      )
    }
    return withFileLock(lockPath, async () => {
      await this.#removeTemporaries(path)
      return critical()
    })
  }

  async #removeTemporaries(path: string): Promise<void> {
    const prefix = temporaryPrefix(path)
    const names = await readdir(dirname(path)).catch(() => [])
    const left = names.filter((name) => name.startsWith(prefix) && name.endsWith('.tmp'))
    await Promise.all(left.map((name) => rm(join(dirname(path), name), { force: true })))
  }
}
