import { serverKey } from './server-key.ts'
import type { ServerSpec } from './server-spec.ts'
import { startServer, type RunningServer, type StartServerOptions } from './start-server.ts'

/** Options of {@link ServerPool}. */
export interface ServerPoolOptions extends Pick<StartServerOptions, 'print'> {
  /**
   * How long a server with no lease left keeps running before it is stopped, in milliseconds: 0
   * stops it at the last release, `Infinity` keeps it until {@link ServerPool.stopAll} (or the
   * process hooks at exit). A lease taken meanwhile cancels the stop. Default 0.
   */
  idleTimeoutMs?: number
}

interface Entry {
  key: string
  server: Promise<RunningServer>
  leases: number
  idleTimer: ReturnType<typeof setTimeout> | undefined
}

/**
 * One server per distinct launch configuration ({@link serverKey}), shared by every benchmark that
 * asks for it: `acquire` starts it (or waits for the start already under way), `release` gives the
 * lease back, and the server stops when the last lease is gone (see `idleTimeoutMs`).
 */
export class ServerPool {
  readonly #entries = new Map<string, Entry>()
  readonly #idleTimeoutMs: number
  readonly #print: StartServerOptions['print']

  constructor(options: ServerPoolOptions = {}) {
    this.#idleTimeoutMs = options.idleTimeoutMs ?? 0
    this.#print = options.print
  }

  /** Number of servers started or starting. */
  get size(): number {
    return this.#entries.size
  }

  /** True when a server for this spec is started or starting. */
  has(spec: ServerSpec): boolean {
    return this.#entries.has(serverKey(spec))
  }

  /** A lease on the server for `spec`, started on first use. A failed start is not cached: the next acquire tries again. */
  async acquire(spec: ServerSpec): Promise<RunningServer> {
    const key = serverKey(spec)
    let entry = this.#entries.get(key)
    if (entry === undefined) {
      const created: Entry = { key, server: startServer(spec, { print: this.#print }), leases: 0, idleTimer: undefined }
      entry = created
      this.#entries.set(key, created)
      created.server.catch(() => {
        if (this.#entries.get(key) === created) this.#entries.delete(key)
      })
    }
    entry.leases++
    if (entry.idleTimer !== undefined) {
      clearTimeout(entry.idleTimer)
      entry.idleTimer = undefined
    }
    return entry.server
  }

  /** Gives a lease back; the server stops when it was the last one (after `idleTimeoutMs`). */
  async release(server: RunningServer): Promise<void> {
    const entry = this.#entries.get(server.key)
    if (entry === undefined || entry.leases === 0) return
    entry.leases--
    if (entry.leases > 0) return
    // A server that died is never handed to the next bench.
    if (this.#idleTimeoutMs === 0 || server.exited) return this.#stop(entry)
    if (this.#idleTimeoutMs === Number.POSITIVE_INFINITY) return
    entry.idleTimer = setTimeout(() => void this.#stop(entry), this.#idleTimeoutMs)
    ;(entry.idleTimer as { unref?: () => void }).unref?.()
  }

  /**
   * Stops the server of `spec` and starts it afresh, keeping its leases: a bench that wants a fresh
   * server for each trial (no warm caches, another memory layout). Resolves to the new server.
   */
  async restart(spec: ServerSpec): Promise<RunningServer> {
    const key = serverKey(spec)
    const entry = this.#entries.get(key)
    if (entry === undefined) return this.acquire(spec)
    const old = await entry.server.catch(() => undefined)
    await old?.stop()
    entry.server = startServer(spec, { print: this.#print })
    const started = entry.server
    started.catch(() => {
      if (this.#entries.get(key) === entry && entry.server === started) this.#entries.delete(key)
    })
    return started
  }

  /** Stops every server of the pool, leased or not. */
  async stopAll(): Promise<void> {
    await Promise.allSettled([...this.#entries.values()].map((entry) => this.#stop(entry)))
  }

  async #stop(entry: Entry): Promise<void> {
    if (entry.idleTimer !== undefined) clearTimeout(entry.idleTimer)
    if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key)
    const server = await entry.server.catch(() => undefined)
    await server?.stop()
  }
}
