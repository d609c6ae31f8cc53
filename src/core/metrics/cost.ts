import { OptionsError } from '../errors.ts'
import type { CostOptions, CostResult } from '../types.ts'

/**
 * Cost of one million output tokens at a measured throughput:
 * `pricePerGpuHour * gpus / (outputTokensPerSec * 3600) * 1e6`.
 * E.g. $2 per GPU-hour, 2 GPUs, 1000 tokens/s: $4/h over 3.6 M tokens/h = $1.111 per M tokens.
 * A throughput of 0 gives `Infinity` (no tokens for any money); callers that serialise the result
 * should leave cost out in that case.
 *
 * @param outputTokensPerSec Output tokens per second (see `Throughput.outputTokensPerSec`).
 * @throws {OptionsError} when the price is negative or not finite, or `gpus` is not a positive integer.
 */
export function costPerMillionOutputTokens(outputTokensPerSec: number, cost: CostOptions): CostResult {
  const gpus = cost.gpus ?? 1
  if (!Number.isFinite(cost.pricePerGpuHour) || cost.pricePerGpuHour < 0) {
    throw new OptionsError('cost.pricePerGpuHour', `got ${cost.pricePerGpuHour}`, 'Give the price of one GPU for one hour as a finite number >= 0, e.g. 2.5.')
  }
  if (!Number.isInteger(gpus) || gpus < 1) {
    throw new OptionsError('cost.gpus', `got ${gpus}`, 'Give the number of GPUs serving the model as a positive integer (default 1).')
  }
  const tokensPerHour = outputTokensPerSec * 3600
  const perMillionOutputTokens = tokensPerHour > 0 ? ((cost.pricePerGpuHour * gpus) / tokensPerHour) * 1e6 : Number.POSITIVE_INFINITY
  return { pricePerGpuHour: cost.pricePerGpuHour, gpus, perMillionOutputTokens }
}
