import { OptionsError } from '../core/contract/errors.ts'
import { resolveSimulatorOptions } from './options.ts'
import type { SimulatorOptions } from './options.ts'

/** A fixed request shape, in tokens. */
export interface SimulatorWorkloadShape {
  /** Prompt tokens per request. */
  inputTokens: number
  /** Output tokens per request (send `ignore_eos` so the simulator produces exactly this many). */
  outputTokens: number
}

/** What the batching model allows for one workload shape. Infinite rates and zero latencies at speed factor 0. */
export interface SimulatorCapacity {
  /** Output tokens per second with a full batch: the plateau of a concurrency sweep. */
  maxOutputTokensPerSec: number
  /** Completed requests per second with a full batch. */
  maxRequestsPerSec: number
  /** Prompt plus output tokens per second with a full batch. */
  maxTotalTokensPerSec: number
  /** Concurrency at which the batch is full (`maxRunningSequences`); beyond it requests queue and TTFT grows. */
  saturationConcurrency: number
  /** Chunks per request: ceil(outputTokens / tokensPerChunk). */
  chunksPerRequest: number
  /** Prefill time of one request, ms (speed factor applied). */
  prefillMs: number
  /** Length of a decode step with a full batch, ms (speed factor applied). */
  fullBatchStepMs: number
  /** One request at a time (concurrency 1), ignoring HTTP overhead. */
  singleStream: {
    /** prefill + one decode step, ms. */
    ttftMs: number
    /** (E2E − TTFT) / (outputTokens − 1), ms; 0 for one-token outputs. */
    tpotMs: number
    e2eMs: number
    outputTokensPerSec: number
  }
}

/**
 * Capacity of the simulator for a workload, from its parameters (s = speedFactor, B =
 * maxRunningSequences, C = chunks per request, P = s·(prefillBaseMs + prefillMsPerToken·inputTokens),
 * D(n) = s·(decodeBaseMs + decodeMsPerSequence·n)). With B sequences always running, every step
 * emits B chunks and each request costs C chunk-slots plus one prefill P, so
 * `maxRequestsPerSec = 1000·B / (C·D(B) + B·P)` and `maxOutputTokensPerSec = maxRequestsPerSec·outputTokens`.
 * At concurrency 1: TTFT = P + D(1), E2E = P + C·D(1). With `prefixCaching`, P is the cost of an
 * uncached prompt: hits only make prefill cheaper, so rates are then lower bounds, latencies upper ones.
 */
export function simulatorCapacity(options: SimulatorOptions, workload: SimulatorWorkloadShape): SimulatorCapacity {
  const o = resolveSimulatorOptions(options)
  const { inputTokens, outputTokens } = workload
  if (!Number.isInteger(inputTokens) || inputTokens < 0)
    throw new OptionsError(
      'workload.inputTokens',
      `must be an integer >= 0, got ${inputTokens}`,
      'Pass the prompt length in tokens.',
    )
  if (!Number.isInteger(outputTokens) || outputTokens < 1)
    throw new OptionsError(
      'workload.outputTokens',
      `must be an integer >= 1, got ${outputTokens}`,
      'Pass the output length in tokens.',
    )

  const s = o.speedFactor
  const batch = o.maxRunningSequences
  const chunks = Math.ceil(outputTokens / o.tokensPerChunk)
  const prefillMs = s * (o.prefillBaseMs + o.prefillMsPerToken * inputTokens)
  const stepMs = (n: number) => s * (o.decodeBaseMs + o.decodeMsPerSequence * n)
  const fullBatchStepMs = stepMs(batch)

  const maxRequestsPerSec = (1000 * batch) / (chunks * fullBatchStepMs + batch * prefillMs)
  const ttftMs = prefillMs + stepMs(1)
  const e2eMs = prefillMs + chunks * stepMs(1)
  return {
    maxOutputTokensPerSec: maxRequestsPerSec * outputTokens,
    maxRequestsPerSec,
    maxTotalTokensPerSec: maxRequestsPerSec * (inputTokens + outputTokens),
    saturationConcurrency: batch,
    chunksPerRequest: chunks,
    prefillMs,
    fullBatchStepMs,
    singleStream: {
      ttftMs,
      tpotMs: outputTokens > 1 ? (e2eMs - ttftMs) / (outputTokens - 1) : 0,
      e2eMs,
      outputTokensPerSec: (1000 * outputTokens) / e2eMs,
    },
  }
}
