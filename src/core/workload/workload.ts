import type { ApiKind } from '../contract/api-kinds.ts'
import type { PreparedRequest } from '../contract/request-record.ts'
import type { WorkloadFacts } from '../contract/result.ts'

/** What is sent: one {@link PreparedRequest} per measured index, deterministic given the seed. */
export interface Workload {
  /** Number of distinct items (datasets, prompt lists, traces); undefined for generated workloads. */
  size: number | undefined
  /**
   * The request for measured index `index` (deterministic given the seed, whatever the call
   * order). Datasets cycle past their end; negative indices (warm-up) give requests too.
   */
  next(index: number): PreparedRequest
  /** Trace replay only: planned send offsets in milliseconds from the start, non-decreasing. */
  timestampsMs?: number[]
  /** Facts for the result: kind, path, sha256 of the file, seed, salt, requested mean lengths (tokens). */
  describe(): WorkloadFacts
}

/** Counts the tokens of a text (a tokenizer, or an estimate). */
export type CountTokens = (text: string) => number

/** What {@link createWorkload} needs besides the workload options. */
export interface WorkloadContext {
  /** Seed of every random choice (lengths, words, shuffle). */
  seed: number
  /** `chat` requests carry `messages`, `completions` requests `prompt`. */
  api: ApiKind
  /**
   * Text placed at the very start of every generated prompt (synthetic, trace) so that a run does
   * not reuse the server's prefix cache from an earlier run. Default: a fresh random salt per
   * workload, recorded by `describe()`. Pass the recorded one to reproduce a run exactly, or `''`
   * for none.
   */
  salt?: string
  /**
   * Token counter used to size prompts and estimate dataset lengths. Default: an estimate of one
   * token per word or number and one per run of punctuation (a lower bound for BPE tokenizers,
   * exact for the common words synthetic prompts are built from). A synthetic workload's
   * `tokenizer` file, when given, takes precedence.
   */
  countTokens?: CountTokens
}
