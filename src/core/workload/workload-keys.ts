import { rejectUnknownKeys } from '../contract/known-keys.ts'
import type {
  AgenticTraceWorkload,
  JsonlWorkload,
  NumberDistribution,
  PromptsWorkload,
  SessionsWorkload,
  ShareGptSessionSource,
  ShareGptWorkload,
  SyntheticSessionSource,
  SyntheticWorkload,
  TokenLengthDistribution,
  TraceWorkload,
  WorkloadOptions,
  WorkloadRequestOptions,
} from '../contract/workload-options.ts'

/** The keys every workload kind takes about what each request carries besides its conversation. */
const REQUEST_KEYS = ['tools', 'toolChoice', 'responseFormat', 'batch'] as const satisfies ReadonlyArray<
  keyof WorkloadRequestOptions
>

/** Every key of each workload kind. */
const WORKLOAD_KEYS = {
  synthetic: [
    'kind',
    'inputTokens',
    'outputTokens',
    'ignoreEos',
    'sharedPrefixTokens',
    'tokenizer',
    ...REQUEST_KEYS,
  ] satisfies ReadonlyArray<keyof SyntheticWorkload>,
  sharegpt: ['kind', 'path', 'outputTokens', 'ignoreEos', ...REQUEST_KEYS] satisfies ReadonlyArray<
    keyof ShareGptWorkload
  >,
  jsonl: ['kind', 'path', 'ignoreEos', ...REQUEST_KEYS] satisfies ReadonlyArray<keyof JsonlWorkload>,
  prompts: ['kind', 'prompts', 'maxTokens', 'ignoreEos', ...REQUEST_KEYS] satisfies ReadonlyArray<
    keyof PromptsWorkload
  >,
  trace: ['kind', 'path', 'ignoreEos', ...REQUEST_KEYS] satisfies ReadonlyArray<keyof TraceWorkload>,
  sessions: ['kind', 'source', 'thinkTimeMs', 'ignoreEos', ...REQUEST_KEYS] satisfies ReadonlyArray<
    keyof SessionsWorkload
  >,
  'agentic-trace': ['kind', 'path', 'ignoreEos', ...REQUEST_KEYS] satisfies ReadonlyArray<keyof AgenticTraceWorkload>,
} as const satisfies Record<WorkloadOptions['kind'], readonly string[]>

const SOURCE_KEYS = {
  synthetic: ['kind', 'turns', 'userTokens', 'outputTokens', 'systemPromptTokens'] satisfies ReadonlyArray<
    keyof SyntheticSessionSource
  >,
  sharegpt: ['kind', 'path', 'outputTokens', 'maxTurns'] satisfies ReadonlyArray<keyof ShareGptSessionSource>,
  jsonl: ['kind', 'path'],
} as const satisfies Record<SessionsWorkload['source']['kind'], readonly string[]>

const DISTRIBUTION_KEYS = ['mean', 'stddev', 'min', 'max'] as const satisfies ReadonlyArray<
  keyof TokenLengthDistribution & keyof NumberDistribution
>

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function distributions(parent: Record<string, unknown>, keys: readonly string[], where: string): void {
  for (const key of keys) {
    const value = parent[key]
    if (isObject(value)) rejectUnknownKeys(value, DISTRIBUTION_KEYS, `${where}.${key}`)
  }
}

/**
 * Refuses an unknown key anywhere in `workload` (its kind already checked), with "did you mean":
 * the workload itself, its length and count distributions, a session source.
 * @throws {OptionsError} naming the key.
 */
export function rejectUnknownWorkloadKeys(workload: Record<string, unknown>): void {
  const kind = workload.kind as WorkloadOptions['kind']
  rejectUnknownKeys(workload, WORKLOAD_KEYS[kind], 'workload', `a '${kind}' workload`)
  distributions(workload, ['inputTokens', 'outputTokens', 'thinkTimeMs'], 'workload')
  const source = workload.source
  if (kind === 'sessions' && isObject(source) && Object.hasOwn(SOURCE_KEYS, source.kind as string)) {
    rejectUnknownKeys(
      source,
      SOURCE_KEYS[source.kind as keyof typeof SOURCE_KEYS],
      'workload.source',
      `a '${String(source.kind)}' session source`,
    )
    distributions(source, ['turns', 'userTokens', 'outputTokens'], 'workload.source')
  }
}
