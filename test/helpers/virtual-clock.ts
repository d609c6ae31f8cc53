import type { SchedulerClock } from '../../src/sim/scheduler.ts'

/** A virtual clock: timers fire in due order, each `lateness()` ms after its due time, like a busy event loop. */
export class VirtualClock implements SchedulerClock {
  t = 0
  lateness: (due: number) => number = () => 0
  #timers: Array<{ due: number; seq: number; run: () => void; cancelled: boolean }> = []
  #seq = 0
  now(): number {
    return this.t
  }
  after(ms: number, run: () => void): () => void {
    const timer = { due: this.t + Math.max(0, ms), seq: this.#seq++, run, cancelled: false }
    this.#timers.push(timer)
    return () => (timer.cancelled = true)
  }
  /** Runs every timer (and the ones they set) in order. */
  run(): void {
    for (let guard = 0; guard < 1_000_000; guard++) {
      const live = this.#timers.filter((t) => !t.cancelled)
      if (live.length === 0) return
      live.sort((a, b) => a.due - b.due || a.seq - b.seq)
      const next = live[0]!
      this.#timers = live.slice(1)
      this.t = Math.max(this.t, next.due + this.lateness(next.due))
      next.run()
    }
    throw new Error('timer loop did not settle')
  }
}
