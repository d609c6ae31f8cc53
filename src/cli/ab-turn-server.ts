/**
 * The turn server of `ab` with arms together: each arm process asks for its turn (POST /turn, see
 * `TurnAsk`) and waits; `ab` reads each arm's ask ({@link TurnServer.arrive}) and answers it when the
 * arm may go ({@link TurnServer.answer}). One open ask per arm at a time. Listens on 127.0.0.1 only.
 */
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TurnAnswer, TurnAsk } from '../bench/arm-turns.ts'

interface Open {
  ask: TurnAsk
  res: ServerResponse
  /** Handed to `arrive` already. */
  seen: boolean
}

/** Asks larger than this are refused (an ask is a line of JSON), bytes. */
const MAX_ASK_BYTES = 64 * 1024

export class TurnServer {
  private readonly open = new Map<string, Open>()
  private readonly waiting = new Map<string, { resolve: (ask: TurnAsk) => void; reject: (error: Error) => void }>()
  private readonly failed = new Map<string, Error>()
  private readonly reasons = new Map<string, string>()
  private closed = false

  private readonly server: Server
  /** `http://127.0.0.1:<port>` once started. */
  url = ''

  private constructor() {
    this.server = createServer((req, res) => {
      let body = ''
      req.setEncoding('utf8')
      req.on('data', (chunk: string) => {
        body += chunk
        if (body.length > MAX_ASK_BYTES) req.destroy()
      })
      req.on('end', () => {
        let ask: TurnAsk
        try {
          ask = JSON.parse(body) as TurnAsk
          if (req.url !== '/turn' || req.method !== 'POST' || typeof ask.arm !== 'string') throw new Error('not an ask')
        } catch {
          res.writeHead(400).end('POST /turn with a turn ask as JSON')
          return
        }
        this.received(ask, res)
      })
    })
  }

  /** Starts a turn server on a free port of 127.0.0.1. */
  static async start(): Promise<TurnServer> {
    const turns = new TurnServer()
    await new Promise<void>((resolve, reject) => {
      turns.server.once('error', reject)
      turns.server.listen(0, '127.0.0.1', resolve)
    })
    turns.url = `http://127.0.0.1:${(turns.server.address() as AddressInfo).port}`
    return turns
  }

  private received(ask: TurnAsk, res: ServerResponse): void {
    if (ask.kind === 'failed') {
      this.reasons.set(ask.arm, ask.message)
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ noted: true }))
      return
    }
    if (this.open.has(ask.arm)) {
      res.writeHead(409).end(`arm ${ask.arm} has an ask open already`)
      return
    }
    const waiter = this.waiting.get(ask.arm)
    this.open.set(ask.arm, { ask, res, seen: waiter !== undefined })
    if (waiter) {
      this.waiting.delete(ask.arm)
      waiter.resolve(ask)
    }
  }

  /** The arm's next ask, once it has made it (kept open until answered). */
  arrive(arm: string): Promise<TurnAsk> {
    const open = this.open.get(arm)
    if (open && !open.seen) {
      open.seen = true
      return Promise.resolve(open.ask)
    }
    if (open) return Promise.reject(new Error(`arm ${arm}'s ask is not answered yet`))
    const failed = this.failed.get(arm)
    if (failed) return Promise.reject(failed)
    if (this.closed) return Promise.reject(new Error(`ab is stopping; the ${arm} arm was not asked again`))
    return new Promise((resolve, reject) => this.waiting.set(arm, { resolve, reject }))
  }

  /** Answers the arm's open ask: its turn. */
  answer(arm: string, answer: TurnAnswer): void {
    const open = this.open.get(arm)
    if (!open) throw new Error(`arm ${arm} has no open ask to answer`)
    this.open.delete(arm)
    open.res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer))
  }

  /** Why the arm said it could not go on, if it said. */
  reasonOf(arm: string): string | undefined {
    return this.reasons.get(arm)
  }

  /** Fails whoever waits for the arm, now or later (its process ended). */
  fail(arm: string, error: Error): void {
    this.failed.set(arm, error)
    const waiter = this.waiting.get(arm)
    this.waiting.delete(arm)
    waiter?.reject(error)
  }

  /** Closes the server (once); open and later asks fail, so each arm stops its server and ends by itself. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    // Whoever waits for an arm's ask stops waiting: the arms are being stopped.
    for (const [arm, waiter] of this.waiting)
      waiter.reject(new Error(`ab is stopping; the ${arm} arm was not asked again`))
    this.waiting.clear()
    for (const { res } of this.open.values()) if (!res.writableEnded) res.writeHead(503).end('ab is stopping')
    this.open.clear()
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}
