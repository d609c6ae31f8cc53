/**
 * Where a choice of an OpenAI-style response carries output, in the order they are read: the one
 * definition of "carries output" (README, "Metric definitions"), which TTFT, E2E, ITL and the
 * estimated token count rest on; the fields not marked `reasoning` are the answer, which TTFO and
 * the captured output text rest on. The fast path over repeated chunks (`content-chunk-template.ts`)
 * is built from it; the JSON parser's predicates (`sse-event.ts`) are held to it by a test.
 */
export interface OutputField {
  /** `choice`: on the choice itself (completions' `text`); `delta`: in its `delta` when streamed, its `message` when whole. */
  readonly place: 'choice' | 'delta'
  /** The field holding a non-empty string. */
  readonly field: string
  /** True for the model's reasoning (thinking) text: it counts for TTFT, not for TTFO, and is never part of the captured output text. */
  readonly reasoning: boolean
}

export const OUTPUT_FIELDS: readonly OutputField[] = [
  { place: 'choice', field: 'text', reasoning: false },
  { place: 'delta', field: 'content', reasoning: false },
  { place: 'delta', field: 'reasoning_content', reasoning: true },
  // vLLM >= 0.10 names the reasoning field `reasoning`.
  { place: 'delta', field: 'reasoning', reasoning: true },
]
