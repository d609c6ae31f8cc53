/**
 * Where a choice of an OpenAI-style response carries output, in the order they are read: the one
 * definition of "carries output" (README, "Metric definitions"), which TTFT, E2E, ITL and the
 * estimated token count rest on. The fast path over repeated chunks (`content-chunk-template.ts`)
 * is built from it; the JSON parser's predicates (`sse-event.ts`) are held to it by a test.
 */
export interface OutputField {
  /** `choice`: on the choice itself (completions' `text`); `delta`: in its `delta` when streamed, its `message` when whole. */
  readonly place: 'choice' | 'delta'
  /** The field holding a non-empty string. */
  readonly field: string
}

export const OUTPUT_FIELDS: readonly OutputField[] = [
  { place: 'choice', field: 'text' },
  { place: 'delta', field: 'content' },
  { place: 'delta', field: 'reasoning_content' },
  // vLLM >= 0.10 names the reasoning field `reasoning`.
  { place: 'delta', field: 'reasoning' },
]
