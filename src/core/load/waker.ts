import { setImmediate } from 'node:timers'

/**
 * One sleeper that can be woken early. The scheduling loop sleeps on it until its next planned
 * send, a deadline, or an event (a request finished, the run was aborted) calls {@link wake}.
 */
export class Waker {
  #resolve: (() => void) | undefined
  #timer: ReturnType<typeof setTimeout> | undefined

  /** Resolves after `ms` milliseconds (never, for Infinity) or at the next {@link wake}. */
  wait(ms: number): Promise<void> {
    this.wake()
    return new Promise<void>((resolve) => {
      this.#resolve = resolve
      if (Number.isFinite(ms)) this.#timer = setTimeout(() => this.wake(), Math.max(0, ms))
    })
  }

  wake(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
    const resolve = this.#resolve
    this.#resolve = undefined
    resolve?.()
  }
}

/** Yields one turn of the event loop (I/O callbacks run), without the ~1 ms floor of a timer. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve))
}
