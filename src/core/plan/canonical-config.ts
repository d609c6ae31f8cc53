import { isRecord } from '../contract/is-record.ts'
import type { LoadOptions } from '../contract/options.ts'
import type { WorkloadOptions } from '../contract/workload-options.ts'
import { resolveLoad } from './resolve-load.ts'
import type { BaselineConfig } from '../baseline/index.ts'
import {
  DEFAULT_PROMPTS_MAX_TOKENS,
  DEFAULT_SHARED_PREFIX_TOKENS,
  DEFAULT_SYSTEM_PROMPT_TOKENS,
  ignoreEosOf,
  resolveLengthDistribution,
  resolveNumberDistribution,
} from '../workload/index.ts'

type Json = Record<string, unknown>

/** A resolved distribution as JSON: `max: Infinity` (unbounded) is left out, as JSON cannot hold it. */
function bounded(distribution: { mean: number; stddev: number; min: number; max: number }): Json {
  const { mean, stddev, min, max } = distribution
  return { mean, stddev, min, ...(max === Infinity ? {} : { max }) }
}

function lengths(value: unknown): unknown {
  return isRecord(value) ? bounded(resolveLengthDistribution('', value as never)) : value
}

/** A count (`whole`) or time given as a number or a distribution, resolved. */
function distribution(value: unknown, whole: boolean): unknown {
  return isRecord(value) || typeof value === 'number'
    ? bounded(resolveNumberDistribution('', value as never, whole))
    : value
}

function canonicalSessionSource(source: Json): Json {
  if (source.kind !== 'synthetic') return source
  return {
    ...source,
    turns: distribution(source.turns, true),
    userTokens: lengths(source.userTokens),
    outputTokens: lengths(source.outputTokens),
    systemPromptTokens: source.systemPromptTokens ?? DEFAULT_SYSTEM_PROMPT_TOKENS,
  }
}

/** The workload as the run sends it: every distribution's defaults, `ignoreEos` and its kind's other defaults written out. */
function canonicalWorkload(workload: Json): Json {
  const out: Json = { ...workload, ignoreEos: ignoreEosOf(workload as unknown as WorkloadOptions) }
  switch (workload.kind) {
    case 'synthetic':
      out.inputTokens = lengths(workload.inputTokens)
      out.outputTokens = lengths(workload.outputTokens)
      out.sharedPrefixTokens = workload.sharedPrefixTokens ?? DEFAULT_SHARED_PREFIX_TOKENS
      break
    case 'prompts':
      out.maxTokens = workload.maxTokens ?? DEFAULT_PROMPTS_MAX_TOKENS
      break
    case 'sessions': {
      if (isRecord(workload.source)) out.source = canonicalSessionSource(workload.source)
      // No think time and a think time of exactly 0 are the same sessions.
      const think = workload.thinkTimeMs === undefined ? undefined : distribution(workload.thinkTimeMs, false)
      if (think === undefined || (isRecord(think) && think.mean === 0 && think.stddev === 0)) delete out.thinkTimeMs
      else out.thinkTimeMs = think
      break
    }
  }
  return out
}

/**
 * The identity of what a baseline measured: `config` with every default the run applies written
 * out, so a default spelled out or left out is the same baseline (`{ rate: 10 }` and
 * `{ rate: 10, arrival: 'poisson', drainGraceMs: 30000 }` are one entry). The defaults are the
 * stages' own (`ignoreEosOf`, `resolveLengthDistribution`, `resolveLoad`, ...), so the identity
 * cannot drift from what is sent. The model is left out: it is software under test (the fingerprint names
 * it), so a new model or quantization is compared with the old one, not refused. Idempotent; a config it cannot read (a file edited by hand) is
 * returned as it is, and then matches only itself.
 */
export function canonicalConfig(config: BaselineConfig): BaselineConfig {
  try {
    const out: BaselineConfig = { ...config }
    // A rate sweep or capacity search leaves `rate` out of its load: the swept axis makes it open.
    const sweptRate = (isRecord(config.sweep) && config.sweep.rate !== undefined) || config.capacity !== undefined
    // The load as the run applies it (resolveLoad): one definition of its defaults for the run and the identity.
    if (isRecord(config.load)) {
      const { maxInFlight: _cap, ...load } = resolveLoad(
        config.load as LoadOptions,
        // Shaped by its rate alone, a trace's too: the identity stored baselines were keyed by (some keep only a hash).
        config.load.rate !== undefined || sweptRate ? 'open' : 'closed',
      )
      // The cap follows from `concurrency` and the schedule: the identity keeps what was given.
      out.load = load as unknown as Json
    }
    if (isRecord(config.workload)) out.workload = canonicalWorkload(config.workload)
    // The model (and so its quantization) is software under test, compared and named like a server version:
    // another model is the same workload served by other software, not another baseline.
    if (isRecord(config.target) && config.target.model !== undefined) {
      const { model: _model, ...target } = config.target
      if (Object.keys(target).length > 0) out.target = target
      else delete out.target
    }
    return out
  } catch {
    return config
  }
}
