import { resolve } from 'node:path'
import { OptionsError } from '../contract/errors.ts'
import type { WorkloadOptions } from '../contract/workload-options.ts'
import { createJsonlWorkload } from './jsonl-workload.ts'
import { createPromptsWorkload } from './prompts-workload.ts'
import { createShareGptWorkload } from './sharegpt-workload.ts'
import { createSyntheticWorkload } from './synthetic-workload.ts'
import { createTraceWorkload } from './trace-workload.ts'
import { createAgenticTraceWorkload, createSessionsWorkload } from './sessions-workload.ts'
import type { Workload, WorkloadContext } from './workload.ts'
import { API_CHOICES, isApiKind, takesInputs } from '../contract/api-kinds.ts'
import { batchInputs, batchOf } from './input-batches.ts'

/** The workload kinds, in the order messages list them. */
export const WORKLOAD_KINDS: readonly string[] = [
  'synthetic',
  'sharegpt',
  'jsonl',
  'prompts',
  'trace',
  'sessions',
  'agentic-trace',
]

/** The kinds whose unit is a session (their load counts sessions, see `LoadOptions.sessions`). */
export const SESSION_WORKLOAD_KINDS: readonly string[] = ['sessions', 'agentic-trace']

/**
 * The workload with its relative file paths (`path`, `tokenizer`) resolved against `baseDir`, a
 * bench file's folder; unchanged without one (they then resolve from the working directory).
 */
export function resolveWorkloadPaths(options: WorkloadOptions, baseDir: string | undefined): WorkloadOptions {
  if (baseDir === undefined || typeof options !== 'object' || options === null) return options
  const from = (path: unknown): unknown => (typeof path === 'string' && path !== '' ? resolve(baseDir, path) : path)
  if (
    options.kind === 'sharegpt' ||
    options.kind === 'jsonl' ||
    options.kind === 'trace' ||
    options.kind === 'agentic-trace'
  )
    return { ...options, path: from(options.path) as string }
  if (
    options.kind === 'sessions' &&
    typeof options.source === 'object' &&
    options.source !== null &&
    options.source.kind !== 'synthetic'
  ) {
    return { ...options, source: { ...options.source, path: from(options.source.path) as string } }
  }
  if (options.kind === 'synthetic' && options.tokenizer !== undefined)
    return { ...options, tokenizer: from(options.tokenizer) as string }
  return options
}

/**
 * Builds the workload: reads and validates any file completely, so that every problem surfaces
 * (as an {@link OptionsError} or a WorkloadError with file and line) before a request is sent.
 */
export async function createWorkload(options: WorkloadOptions, context: WorkloadContext): Promise<Workload> {
  if (typeof options !== 'object' || options === null) {
    throw new OptionsError(
      'workload',
      `must be an object, got ${String(options)}`,
      'Pass e.g. `{ kind: "synthetic", inputTokens: { mean: 128 }, outputTokens: { mean: 128 } }`.',
    )
  }
  if (!isApiKind(context.api)) {
    throw new OptionsError(
      'target.api',
      `unknown API ${JSON.stringify(context.api)}`,
      `Use ${API_CHOICES}, or leave it out for 'chat'.`,
    )
  }
  if (options.tools !== undefined && context.api === 'completions')
    throw new OptionsError(
      'workload.tools',
      'the completions API takes no tools',
      "Use target.api 'chat', 'responses' or 'messages'.",
    )
  if (options.responseFormat !== undefined && context.api === 'messages')
    throw new OptionsError(
      'workload.responseFormat',
      'the Messages API takes no response_format',
      "Use target.api 'chat', 'responses' or 'completions' for structured output.",
    )
  const api = context.api
  if (!takesInputs(api)) {
    if ((options as { batch?: unknown }).batch !== undefined)
      throw new OptionsError(
        'workload.batch',
        `only the embeddings and rerank APIs take texts in batches; target.api is '${api}'`,
        "Leave it out, or set target.api to 'embeddings' or 'rerank'.",
      )
    return createKind(options, context)
  }
  for (const key of ['tools', 'toolChoice', 'responseFormat', 'ignoreEos', 'outputTokens', 'maxTokens'])
    if ((options as unknown as Record<string, unknown>)[key] !== undefined)
      throw new OptionsError(
        `workload.${key}`,
        `the ${api} API generates no reply: nothing to shape or to size`,
        'Leave it out.',
      )
  if (!INPUT_WORKLOAD_KINDS.includes(options.kind))
    throw new OptionsError(
      'workload.kind',
      `'${options.kind}' is not a source of texts for the ${api} API (its requests follow conversations or a schedule)`,
      `Use ${INPUT_WORKLOAD_KINDS.map((kind) => `'${kind}'`).join(', ')}.`,
    )
  const batch = batchOf((options as { batch?: unknown }).batch)
  // The texts as a chat workload builds them: a prompt, or a conversation whose contents are joined. A synthetic
  // workload samples an output length too, never sent here: any will do.
  const texts = options.kind === 'synthetic' ? { ...options, outputTokens: { mean: 1 } } : options
  return batchInputs(await createKind(texts, { ...context, api: 'chat' }), api, batch)
}

/** The workload kinds whose texts the embeddings and rerank APIs can take (each request its own texts). */
const INPUT_WORKLOAD_KINDS: readonly string[] = ['synthetic', 'sharegpt', 'jsonl', 'prompts']

async function createKind(options: WorkloadOptions, context: WorkloadContext): Promise<Workload> {
  switch (options.kind) {
    case 'synthetic':
      return createSyntheticWorkload(options, context)
    case 'sharegpt':
      return createShareGptWorkload(options, context)
    case 'jsonl':
      return createJsonlWorkload(options, context)
    case 'prompts':
      return createPromptsWorkload(options, context)
    case 'trace':
      return createTraceWorkload(options, context)
    case 'sessions':
      return createSessionsWorkload(options, context)
    case 'agentic-trace':
      return createAgenticTraceWorkload(options, context)
    default:
      throw new OptionsError(
        'workload.kind',
        `must be one of ${WORKLOAD_KINDS.join(', ')}, got ${JSON.stringify((options as { kind?: unknown }).kind)}`,
        'Set `kind` to say where the requests come from.',
      )
  }
}
