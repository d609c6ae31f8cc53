/**
 * What the simulator did with one completion request. Times are `performance.now()` milliseconds
 * (the process's monotonic clock, shared with an in-process client), taken right before the
 * bytes are handed to the socket.
 */
export interface SimulatorScheduleEntry {
  /** Response id (`chatcmpl-…` or `cmpl-…`), as sent to the client. */
  id: string
  /** The request handler started (headers received). */
  arrivedAt: number
  /** Left the queue: its prefill started (absent when it never got a slot). */
  prefillStartedAt?: number
  /** Prefill done: the step that prefilled it ended, which is also when its first token is sent. */
  prefillEndedAt?: number
  /** First content-bearing chunk sent. */
  firstTokenAt?: number
  /** Emit time of every output token, in order; tokens of one chunk share a time. */
  tokenTimes: number[]
  /** Emit time of every content-bearing chunk (differs from `tokenTimes` when `tokensPerChunk` > 1). */
  chunkTimes: number[]
  /** Response ended, failed or the client went away. */
  finishedAt?: number
  promptTokens: number
  /** Planned output length, tokens (the emitted count is `tokenTimes.length`). */
  completionTokens: number
  /**
   * Set when the request did not end normally: `http-429`, `http-500`, `drop-connection`,
   * `error-event`, `stall` (completed after a pause) or `client-disconnect`.
   */
  fault?: string
}

/** Load inside the simulator right now. */
export interface SimulatorStats {
  /** Sequences holding a batch slot (decoding, or stalled). */
  running: number
  /** Requests waiting for a slot. */
  queued: number
  /** Requests whose output was sent in full since start. */
  completed: number
}

/** A started simulator. */
export interface RunningSimulator {
  /** Root URL, e.g. `http://127.0.0.1:41234` (append `/v1` for OpenAI SDKs). */
  url: string
  port: number
  /** Per-request log; filled only with `recordSchedule: true`, in arrival order. */
  schedule: SimulatorScheduleEntry[]
  stats(): SimulatorStats
  /** Changes the speed factor from the next step on (1 nominal, 2 twice as slow, 0 no delay). */
  setSpeedFactor(speedFactor: number): void
  /** Stops listening, ends open connections and the scheduler loop. */
  close(): Promise<void>
}
