import type { ApiKind, PreparedRequest } from '../contract/types.ts'
import type { ResolvedTarget } from './target.ts'

/** Path of the endpoint an API kind posts to, below the server root. */
export function endpointPath(api: ApiKind): string {
  return api === 'chat' ? '/v1/chat/completions' : '/v1/completions'
}

function promptOf(req: PreparedRequest): string {
  if (req.prompt !== undefined) return req.prompt
  // A chat workload driven against /v1/completions: the contents, one per line.
  return (req.messages ?? []).map((m) => m.content).join('\n')
}

/**
 * The JSON body of one streaming request. Always streams and asks for usage
 * (`stream_options.include_usage`) so output tokens are exact, in every chunk too
 * (`continuous_usage_stats`) when the target says so (tokens per chunk exact); with `ignoreEos` it adds
 * `ignore_eos: true` and `min_tokens = maxTokens` (vLLM, SGLang) so the server produces
 * exactly the requested length. `extraBody` is merged last and wins.
 */
export function buildRequestBody(target: ResolvedTarget, req: PreparedRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { model: target.model }
  if (target.api === 'chat') {
    body.messages = req.messages ?? [{ role: 'user', content: req.prompt ?? '' }]
  } else {
    body.prompt = promptOf(req)
  }
  body.stream = true
  body.stream_options =
    target.continuousUsageStats === true
      ? { include_usage: true, continuous_usage_stats: true }
      : { include_usage: true }
  if (req.maxTokens !== undefined) body.max_tokens = req.maxTokens
  if (req.ignoreEos === true) {
    body.ignore_eos = true
    if (req.maxTokens !== undefined) body.min_tokens = req.maxTokens
  }
  if (req.extraBody !== undefined) Object.assign(body, req.extraBody)
  return body
}
