import { Waker } from './waker.ts'

/** Sends request `index`; resolves when it finished (ok or failed). The signal aborts it (drain grace over or run aborted). */
export type DispatchRequest = (index: number, plannedAt: number | undefined, signal: AbortSignal) => Promise<void>

/** The requests of one run in flight: what every schedule's driver and the drain share. */
export class InFlightRequests {
  readonly #dispatch: DispatchRequest
  readonly #controllers = new Map<number, AbortController>()
  /** Woken by every completion (and by the run's abort signal). */
  readonly waker = new Waker()
  /** Requests handed to `dispatch`. */
  dispatched = 0
  /** Requests whose signal was aborted while in flight. */
  cancelled = 0
  /** The first rejection of `dispatch` (a bug): the run stops and rethrows it. */
  failure: { error: unknown } | undefined
  /** `performance.now()` of the first send. */
  firstDispatchAt: number | undefined
  /** `performance.now()` of the last completion. */
  lastEndAt: number | undefined

  constructor(dispatch: DispatchRequest) {
    this.#dispatch = dispatch
  }

  /** Requests in flight now. */
  get size(): number {
    return this.#controllers.size
  }

  /** Sends request `index` (the next one) with its planned time, and counts it. */
  send(index: number, plannedAt: number | undefined): void {
    const controller = new AbortController()
    this.#controllers.set(index, controller)
    this.dispatched++
    this.firstDispatchAt ??= performance.now()
    let pending: Promise<void>
    try {
      pending = Promise.resolve(this.#dispatch(index, plannedAt, controller.signal))
    } catch (error) {
      pending = Promise.reject(error)
    }
    pending
      .catch((error: unknown) => {
        this.failure ??= { error }
      })
      .finally(() => {
        this.#controllers.delete(index)
        this.lastEndAt = performance.now()
        this.waker.wake()
      })
  }

  /** Aborts the signal of every request in flight, counting each as cancelled. */
  abortAll(): void {
    for (const controller of this.#controllers.values()) {
      if (!controller.signal.aborted) {
        controller.abort()
        this.cancelled++
      }
    }
  }
}
