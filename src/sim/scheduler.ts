import type { MidStreamFault } from './faults.ts'
import type { PrefixCache } from './prefix-cache.ts'

/** Receives what happens to one sequence. Called from the scheduler loop; must not throw. */
export interface SequenceSink {
  /**
   * The sequence left the queue and its prefill starts (`at`: the clock's now, performance.now()
   * by default); `cachedTokens` of its prompt were prefix-cache hits and cost no prefill.
   */
  admitted(at: number, cachedTokens: number): void
  /** `count` more tokens are ready; `last` marks the final chunk. */
  emit(count: number, last: boolean, at: number): void
  /** A stall fault starts now and lasts until `until`. */
  stalled(at: number, until: number): void
  /** A drop-connection or error-event fault strikes now; the sequence has left the batch. */
  failed(kind: Exclude<MidStreamFault, 'stall'>, at: number): void
}

/** One request inside the scheduler. */
export interface BatchSequence {
  readonly promptTokens: number
  readonly completionTokens: number
  readonly fault: MidStreamFault | undefined
  /** Chunks emitted before the fault strikes. */
  readonly faultAtChunk: number
  /** Hashes of the prompt's full KV blocks (`hashPromptBlocks`), when the prefix cache is modelled. */
  readonly blockHashes?: readonly string[]
  readonly sink: SequenceSink
}

/** The KV cache as the scheduler models it. */
export interface BatchKvCache {
  /** Block size, tokens. */
  blockTokens: number
  /** Capacity, blocks. */
  capacityBlocks: number
  /** Present when prefix caching is modelled. */
  prefixCache: PrefixCache | undefined
}

/** vLLM's defaults: 16-token blocks, 262144 tokens, no prefix caching. */
const DEFAULT_KV_CACHE: BatchKvCache = { blockTokens: 16, capacityBlocks: 262144 / 16, prefixCache: undefined }

/** Timing parameters of the batching model, in milliseconds (before the speed factor). */
export interface BatchTimings {
  maxRunningSequences: number
  prefillBaseMs: number
  prefillMsPerToken: number
  decodeBaseMs: number
  decodeMsPerSequence: number
  tokensPerChunk: number
  speedFactor: number
  /** Share by which every modeled delay grows per hour since the scheduler started (a slow leak). Default 0. */
  slowdownPerHour?: number
  /** Stall length, ms (not scaled). */
  stallMs: number
}

interface SequenceState {
  sequence: BatchSequence
  phase: 'queued' | 'running' | 'done'
  emittedTokens: number
  emittedChunks: number
  /** Prompt tokens found in the prefix cache at admission; their prefill is free. */
  cachedTokens: number
  faultDone: boolean
  stallUntil: number
}

interface Step {
  members: SequenceState[]
  /** Planned end, on the scheduler's clock (ms). */
  end: number
  /** Planned length, ms. */
  duration: number
}

type Wait = { kind: 'begin' | 'finish' | 'stall'; cancel: () => void }

/** The scheduler's time source and timer, replaceable so tests can run it on a virtual clock. */
export interface SchedulerClock {
  /** Monotonic milliseconds. */
  now(): number
  /** Calls `run` after about `ms` (it may be late, or early by the timer's rounding); returns a cancel function. */
  after(ms: number, run: () => void): () => void
}

/** Waits shorter than this use the check phase of the event loop (setImmediate), finer than timers' 1 ms. */
const TIMER_THRESHOLD_MS = 1

/** performance.now() with Node timers. */
const realSchedulerClock: SchedulerClock = {
  now: () => performance.now(),
  after(ms, run) {
    if (ms < TIMER_THRESHOLD_MS) {
      const handle = setImmediate(run)
      return () => clearImmediate(handle)
    }
    const handle = setTimeout(run, ms)
    return () => clearTimeout(handle)
  },
}

/**
 * Continuous batching in the manner of vLLM. A step begins by admitting queued sequences while
 * fewer than `maxRunningSequences` run; their prefill runs inside that step and lengthens it, as
 * one forward pass holds both prefill and decode. The step lasts
 * `speed × (Σ prefill of admitted + decodeBaseMs + decodeMsPerSequence × sequences in the step)`
 * and ends with one chunk of `tokensPerChunk` tokens for every sequence in it (the admitted ones
 * get their first token). One timer per step; each step's planned start is the previous step's
 * planned end, so timer lateness does not add up over a run. A sequence's prefill is
 * `prefillBaseMs + prefillMsPerToken × (promptTokens − cachedTokens)`, where cachedTokens are its
 * prefix-cache hits at admission (0 without a prefix cache).
 */
export class BatchScheduler {
  readonly #timings: BatchTimings
  readonly #queue: SequenceState[] = []
  #queueHead = 0
  #running: SequenceState[] = []
  readonly #states = new Map<BatchSequence, SequenceState>()
  #completed = 0
  #wait: Wait | undefined
  #step: Step | undefined
  #closed = false

  readonly #clock: SchedulerClock
  readonly #kv: BatchKvCache

  constructor(
    timings: BatchTimings,
    clock: SchedulerClock = realSchedulerClock,
    kvCache: BatchKvCache = DEFAULT_KV_CACHE,
  ) {
    this.#timings = { ...timings }
    this.#clock = clock
    this.#kv = kvCache
    this.#startedAt = clock.now()
  }

  readonly #startedAt: number

  /** Queues a sequence; it runs once a slot is free. */
  submit(sequence: BatchSequence): void {
    if (this.#closed) return
    const state: SequenceState = {
      sequence,
      phase: 'queued',
      emittedTokens: 0,
      emittedChunks: 0,
      cachedTokens: 0,
      faultDone: false,
      stallUntil: 0,
    }
    this.#states.set(sequence, state)
    this.#queue.push(state)
    this.#wake()
  }

  /** Removes a sequence at once (client gone): its slot is free for the next step. */
  cancel(sequence: BatchSequence): void {
    const state = this.#states.get(sequence)
    if (!state) return
    if (state.phase === 'queued') {
      const i = this.#queue.indexOf(state, this.#queueHead)
      if (i >= 0) this.#queue.splice(i, 1)
    } else if (state.phase === 'running') {
      this.#running = this.#running.filter((s) => s !== state)
    }
    this.#finish(state)
  }

  stats(): { running: number; queued: number; completed: number } {
    return { running: this.#running.length, queued: this.#queue.length - this.#queueHead, completed: this.#completed }
  }

  /**
   * Share of KV blocks (0..1) that running sequences hold: ceil((promptTokens + emittedTokens) /
   * blockTokens) each, a cached block shared by several counted once. Capped at 1, as the
   * simulator does not refuse admission when the cache is full.
   */
  kvCacheUsage(): number {
    const cache = this.#kv.prefixCache
    const blocks = this.#privateBlocks() + (cache ? cache.referencedBlocks : 0)
    return Math.min(1, blocks / this.#kv.capacityBlocks)
  }

  /** Blocks running sequences hold outside the prefix cache (all of them without one). */
  #privateBlocks(): number {
    const { blockTokens, prefixCache } = this.#kv
    let blocks = 0
    for (const state of this.#running) {
      const { sequence } = state
      blocks += Math.ceil((sequence.promptTokens + state.emittedTokens) / blockTokens)
      if (prefixCache && sequence.blockHashes) blocks -= sequence.blockHashes.length
    }
    return blocks
  }

  /** Applies from the next step on. */
  setSpeedFactor(speedFactor: number): void {
    this.#timings.speedFactor = speedFactor
  }

  /** Stops the loop; sequences still held are dropped without callbacks. */
  close(): void {
    this.#closed = true
    this.#wait?.cancel()
    this.#wait = undefined
    this.#step = undefined
    this.#queue.length = 0
    this.#queueHead = 0
    this.#running = []
    this.#states.clear()
  }

  #finish(state: SequenceState): void {
    const hashes = state.sequence.blockHashes
    if (state.phase === 'running' && hashes) this.#kv.prefixCache?.release(hashes)
    state.phase = 'done'
    this.#states.delete(state.sequence)
  }

  #wake(): void {
    if (this.#step || (this.#wait && this.#wait.kind !== 'stall')) return
    this.#wait?.cancel()
    // Deferred, not a direct call: requests arriving in the same turn of the event loop join one step.
    this.#waitUntil('begin', this.#clock.now(), () => this.#beginStep(this.#clock.now(), 0))
  }

  /**
   * Runs `run` once the clock has reached `target`, never earlier: Node timers count
   * from a cached loop time and can fire early, so the remainder is waited for again, the last
   * sub-millisecond on the check phase (setImmediate), which also lets I/O in between.
   */
  #waitUntil(kind: Wait['kind'], target: number, run: () => void): void {
    const fire = () => {
      this.#wait = undefined
      if (this.#closed) return
      const remaining = target - this.#clock.now()
      if (remaining > 0) arm(remaining)
      else run()
    }
    const arm = (ms: number) => {
      this.#wait = { kind, cancel: this.#clock.after(ms, fire) }
    }
    arm(target - this.#clock.now())
  }

  #admit(now: number): SequenceState[] {
    const admitted: SequenceState[] = []
    while (this.#running.length < this.#timings.maxRunningSequences && this.#queueHead < this.#queue.length) {
      const state = this.#queue[this.#queueHead++] as SequenceState
      state.phase = 'running'
      this.#running.push(state)
      admitted.push(state)
      const { blockHashes, promptTokens } = state.sequence
      if (this.#kv.prefixCache && blockHashes)
        state.cachedTokens = this.#kv.prefixCache.acquire(blockHashes, promptTokens)
      state.sequence.sink.admitted(now, state.cachedTokens)
    }
    if (admitted.length > 0) this.#kv.prefixCache?.evictToFit(this.#privateBlocks())
    // Compact now and then so the queue array does not grow without bound.
    if (this.#queueHead > 1024 && this.#queueHead * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#queueHead)
      this.#queueHead = 0
    }
    return admitted
  }

  /**
   * @param plannedStart when this step should have started (the previous step's planned end, or now).
   * @param previousDuration lateness up to this much is made up; beyond it (the process was blocked) it is forgiven.
   */
  #beginStep(plannedStart: number, previousDuration: number): void {
    const now = this.#clock.now()
    const start = Math.max(plannedStart, now - previousDuration)
    const admitted: SequenceState[] = []
    const members: SequenceState[] = []
    let earliestStallEnd = Infinity
    let pending = [...this.#running]
    // Loop because a fault striking at chunk 0 frees its slot for the next queued sequence within the same step.
    for (;;) {
      const newlyAdmitted = this.#admit(now)
      admitted.push(...newlyAdmitted)
      pending.push(...newlyAdmitted)
      let freed = false
      for (const state of pending) {
        const { sequence } = state
        if (sequence.fault && !state.faultDone && state.emittedChunks === sequence.faultAtChunk) {
          state.faultDone = true
          if (sequence.fault === 'stall') {
            state.stallUntil = now + this.#timings.stallMs
            sequence.sink.stalled(now, state.stallUntil)
          } else {
            this.#running = this.#running.filter((s) => s !== state)
            this.#finish(state)
            freed = true
            sequence.sink.failed(sequence.fault, now)
            continue
          }
        }
        if (state.stallUntil > now) {
          earliestStallEnd = Math.min(earliestStallEnd, state.stallUntil)
          continue
        }
        members.push(state)
      }
      pending = []
      if (!freed || this.#queueHead >= this.#queue.length) break
    }

    if (members.length === 0) {
      // Nothing to decode: idle until an arrival (#wake) or the first stall ends.
      if (earliestStallEnd < Infinity)
        this.#waitUntil('stall', earliestStallEnd, () => this.#beginStep(this.#clock.now(), 0))
      return
    }

    const t = this.#timings
    let prefillMs = 0
    for (const state of admitted)
      prefillMs += t.prefillBaseMs + t.prefillMsPerToken * (state.sequence.promptTokens - state.cachedTokens)
    const leak = 1 + ((t.slowdownPerHour ?? 0) * (start - this.#startedAt)) / 3_600_000
    const duration = t.speedFactor * leak * (prefillMs + t.decodeBaseMs + t.decodeMsPerSequence * members.length)
    const step: Step = { members, end: start + duration, duration }
    this.#step = step
    // At speed 0 the end is already due: the wait still yields to the event loop, so streams interleave.
    this.#waitUntil('finish', step.end, () => this.#finishStep(step))
  }

  #finishStep(step: Step): void {
    this.#step = undefined
    const now = this.#clock.now()
    const k = this.#timings.tokensPerChunk
    let anyDone = false
    for (const state of step.members) {
      if (state.phase !== 'running') continue // cancelled during the step
      const count = Math.min(k, state.sequence.completionTokens - state.emittedTokens)
      state.emittedTokens += count
      state.emittedChunks++
      const last = state.emittedTokens >= state.sequence.completionTokens
      if (last) {
        anyDone = true
        this.#finish(state)
        this.#completed++
      }
      state.sequence.sink.emit(count, last, now)
    }
    if (anyDone) this.#running = this.#running.filter((s) => s.phase === 'running')
    if (this.#closed) return
    if (this.#running.length > 0 || this.#queueHead < this.#queue.length) this.#beginStep(step.end, step.duration)
  }
}
