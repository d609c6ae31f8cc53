import { OptionsError } from '../contract/errors.ts'
import { takesMessages } from '../contract/api-kinds.ts'
import type { ApiKind } from '../contract/api-kinds.ts'
import type { PreparedRequest } from '../contract/request-record.ts'
import type { WorkloadOptions } from '../contract/workload-options.ts'

/** A single-turn request: `messages` with one user turn for an API that takes a conversation, `prompt` for completions. */
export function promptRequest(api: ApiKind, text: string): PreparedRequest {
  return takesMessages(api) ? { messages: [{ role: 'user', content: text }] } : { prompt: text }
}

/**
 * `ignoreEos` of `workload`, as given or its default: true where the lengths are generated or
 * recorded and are the point of the workload (synthetic, trace, agentic trace, synthetic
 * sessions); false for datasets and prompts (the model may stop early, as a `vllm bench serve`
 * dataset run without `--ignore-eos`), and false whenever the reply is held to a `responseFormat`
 * or a forced `toolChoice` (it ends where the format or the call ends).
 */
export function ignoreEosOf(workload: WorkloadOptions): boolean {
  // A reply held to a format or a tool call ends where its grammar ends: ignore_eos would run it past.
  const constrained =
    workload.responseFormat !== undefined ||
    (workload.toolChoice !== undefined && workload.toolChoice !== 'auto' && workload.toolChoice !== 'none')
  const fallback = constrained
    ? false
    : workload.kind === 'sessions'
      ? workload.source.kind === 'synthetic'
      : ['synthetic', 'trace', 'agentic-trace'].includes(workload.kind)
  const value: unknown = workload.ignoreEos
  if (value !== undefined && typeof value !== 'boolean') {
    throw new OptionsError(
      'workload.ignoreEos',
      `must be true or false, got ${JSON.stringify(value)}`,
      `Leave it out for ${String(fallback)}.`,
    )
  }
  return value ?? fallback
}
