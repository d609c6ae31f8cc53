/**
 * Reading one parsed chunk of an OpenAI-style stream (`chat.completion.chunk` or
 * `text_completion`). Called once per event on the hot path: property reads only, no allocation.
 */

interface DeltaLike {
  content?: unknown
  reasoning_content?: unknown
  /** vLLM >= 0.10 names the reasoning field `reasoning`. */
  reasoning?: unknown
  tool_calls?: unknown
}

interface ChoiceLike {
  text?: unknown
  delta?: DeltaLike | null
  message?: DeltaLike | null
  finish_reason?: unknown
}

/** The fields of a chunk the client reads. */
export interface ChunkLike {
  choices?: unknown
  usage?: unknown
  timings?: unknown
  error?: unknown
  object?: unknown
  message?: unknown
}

function isNonEmptyString(value: unknown): boolean {
  return typeof value === 'string' && value.length > 0
}

/**
 * True when `toolCalls` (a delta's or message's `tool_calls`) holds a call with a non-empty
 * function name or arguments: a tool call is output (AIPerf counts it toward TTFT), and not
 * reasoning. The first delta of a call usually names it, the next ones carry its arguments.
 */
export function carriesToolCall(toolCalls: unknown): boolean {
  if (!Array.isArray(toolCalls)) return false
  for (let i = 0; i < toolCalls.length; i++) {
    const call = toolCalls[i] as { function?: { name?: unknown; arguments?: unknown } | null } | null
    const fn = call?.function
    if (typeof fn === 'object' && fn !== null && (isNonEmptyString(fn.name) || isNonEmptyString(fn.arguments)))
      return true
  }
  return false
}

/** True when a streamed choice carries a tool call ({@link carriesToolCall} of its `delta.tool_calls`). */
export function choiceCarriesToolCall(choice: unknown): boolean {
  if (typeof choice !== 'object' || choice === null) return false
  const delta = (choice as ChoiceLike).delta
  return typeof delta === 'object' && delta !== null && carriesToolCall(delta.tool_calls)
}

/**
 * True when a choice carries output: one of `OUTPUT_FIELDS` (output-fields.ts) holds a non-empty
 * string, or `delta.tool_calls` a call ({@link carriesToolCall}). A role-only or empty delta does
 * not count, as in AIPerf and GenAI-Perf (vLLM's own client counts it). Written out field by field
 * for speed (10-20 ns a call; a loop over the table took 38-82 ns); test/unit/client-output-fields.test.ts
 * holds it to the table.
 */
export function choiceCarriesOutput(choice: unknown): boolean {
  if (typeof choice !== 'object' || choice === null) return false
  const c = choice as ChoiceLike
  if (isNonEmptyString(c.text)) return true
  const delta = c.delta
  if (typeof delta !== 'object' || delta === null) return false
  return (
    isNonEmptyString(delta.content) ||
    isNonEmptyString(delta.reasoning_content) ||
    isNonEmptyString(delta.reasoning) ||
    carriesToolCall(delta.tool_calls)
  )
}

/**
 * True when a choice carries output that is not reasoning: non-empty `text` or `delta.content`
 * (the `OUTPUT_FIELDS` not marked `reasoning`), or a tool call. TTFO's event; held to the table by a test.
 */
export function choiceCarriesNonReasoningOutput(choice: unknown): boolean {
  if (typeof choice !== 'object' || choice === null) return false
  const c = choice as ChoiceLike
  if (isNonEmptyString(c.text)) return true
  const delta = c.delta
  return (
    typeof delta === 'object' &&
    delta !== null &&
    (isNonEmptyString(delta.content) || carriesToolCall(delta.tool_calls))
  )
}

/** `text` then the `content` of `choice[holder]`, '' when neither is a string: the answer text, reasoning left out. */
function answerTextIn(choice: unknown, holder: 'delta' | 'message'): string {
  if (typeof choice !== 'object' || choice === null) return ''
  const c = choice as ChoiceLike
  const text = typeof c.text === 'string' ? c.text : ''
  const fields = c[holder]
  return typeof fields === 'object' && fields !== null && typeof fields.content === 'string'
    ? text + fields.content
    : text
}

/** The output text of a streamed choice that is not reasoning: `text` then `delta.content`, '' when neither is a string. */
export function nonReasoningTextOf(choice: unknown): string {
  return answerTextIn(choice, 'delta')
}

/** The same for a whole (non-streamed) choice: `text` then `message.content`. */
export function completionNonReasoningTextOf(choice: unknown): string {
  return answerTextIn(choice, 'message')
}

/** True when a whole (non-streamed) `chat.completion` / `text_completion` choice carries output: the same fields, in `message`. */
export function completionChoiceCarriesOutput(choice: unknown): boolean {
  if (typeof choice !== 'object' || choice === null) return false
  const c = choice as ChoiceLike
  if (isNonEmptyString(c.text)) return true
  const message = c.message
  if (typeof message !== 'object' || message === null) return false
  return (
    isNonEmptyString(message.content) ||
    isNonEmptyString(message.reasoning_content) ||
    isNonEmptyString(message.reasoning) ||
    carriesToolCall(message.tool_calls)
  )
}

/** True when a whole `chat.completion` choice answers with a tool call. */
export function completionChoiceCarriesToolCall(choice: unknown): boolean {
  if (typeof choice !== 'object' || choice === null) return false
  const message = (choice as ChoiceLike).message
  return typeof message === 'object' && message !== null && carriesToolCall(message.tool_calls)
}

/** The first choice of a chunk, or undefined when `choices` is absent or empty (the usage-only chunk). */
export function firstChoice(chunk: ChunkLike): unknown {
  const choices = chunk.choices
  return Array.isArray(choices) && choices.length > 0 ? choices[0] : undefined
}

/** The last non-empty `finish_reason` among a chunk's choices, else `previous`. */
export function finishReasonOf(chunk: ChunkLike, previous: string | undefined): string | undefined {
  const choices = chunk.choices
  if (!Array.isArray(choices)) return previous
  let reason = previous
  for (let i = 0; i < choices.length; i++) {
    const choice = choices[i] as ChoiceLike | null | undefined
    const r = choice?.finish_reason
    if (typeof r === 'string' && r.length > 0) reason = r
  }
  return reason
}

/**
 * The message of an error carried inside the stream, or undefined. vLLM and llama.cpp send
 * `data: {"error": {"message": ...}}` mid-stream; some servers send `{"object": "error", "message": ...}`.
 */
export function streamErrorOf(chunk: ChunkLike): string | undefined {
  const error = chunk.error
  if (error !== undefined && error !== null) {
    if (typeof error === 'string') return error
    if (typeof error === 'object') {
      const message = (error as { message?: unknown }).message
      if (typeof message === 'string' && message.length > 0) return message
      return JSON.stringify(error).slice(0, 200)
    }
    return String(error)
  }
  if (chunk.object === 'error') {
    return typeof chunk.message === 'string' ? chunk.message : 'error object without a message'
  }
  return undefined
}

/** `usage.completion_tokens` and `usage.prompt_tokens` when a usage object gives them as numbers. */
export function usageTokens(usage: unknown): { completion: number; prompt: number | undefined } | undefined {
  const completion = completionTokensOf(usage)
  if (completion === undefined) return undefined
  const prompt = (usage as { prompt_tokens?: unknown }).prompt_tokens
  return { completion, prompt: typeof prompt === 'number' && Number.isFinite(prompt) ? prompt : undefined }
}

/** `usage.completion_tokens` as a finite number, else undefined (no allocation: read once per event with continuous usage). */
export function completionTokensOf(usage: unknown): number | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined
  const tokens = (usage as { completion_tokens?: unknown }).completion_tokens
  return typeof tokens === 'number' && Number.isFinite(tokens) ? tokens : undefined
}

/** `usage.completion_tokens_details.reasoning_tokens` (OpenAI's field, vLLM and others follow it) as a finite number >= 0, else undefined. */
export function reasoningTokensOf(usage: unknown): number | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined
  const details = (usage as { completion_tokens_details?: unknown }).completion_tokens_details
  if (typeof details !== 'object' || details === null) return undefined
  const tokens = (details as { reasoning_tokens?: unknown }).reasoning_tokens
  return typeof tokens === 'number' && Number.isFinite(tokens) && tokens >= 0 ? tokens : undefined
}

/** The numeric fields of llama.cpp's `timings` object (`prompt_ms`, `predicted_per_second`, ...), or undefined when none. */
export function serverTimingsOf(timings: unknown): Record<string, number> | undefined {
  if (typeof timings !== 'object' || timings === null || Array.isArray(timings)) return undefined
  const out: Record<string, number> = {}
  let any = false
  for (const [key, value] of Object.entries(timings)) {
    if (typeof value === 'number' && Number.isFinite(value)) {
      out[key] = value
      any = true
    }
  }
  return any ? out : undefined
}
