import { OptionsError } from '../contract/errors.ts'
import type { CostOptions } from '../contract/options.ts'
import type { CostResult } from '../contract/result.ts'
import { rejectUnknownKeys } from '../contract/known-keys.ts'

/**
 * Cost of one million output tokens at a measured throughput:
 * `pricePerGpuHour * gpus / (outputTokensPerSec * 3600) * 1e6`.
 * E.g. $2 per GPU-hour, 2 GPUs, 1000 tokens/s: $4/h over 3.6 M tokens/h = $1.111 per M tokens.
 * A throughput of 0 gives `Infinity` (no tokens for any money); callers that serialise the result
 * should leave cost out in that case.
 *
 * @param outputTokensPerSec Output tokens per second (see `Throughput.outputTokensPerSec`).
 * `cost` is checked options ({@link validateCostOptions}, run when the options are planned).
 */
export function costPerMillionOutputTokens(outputTokensPerSec: number, cost: CostOptions): CostResult {
  const gpus = cost.gpus ?? 1
  const tokensPerHour = outputTokensPerSec * 3600
  const perMillionOutputTokens =
    tokensPerHour > 0 ? ((cost.pricePerGpuHour * gpus) / tokensPerHour) * 1e6 : Number.POSITIVE_INFINITY
  return { pricePerGpuHour: cost.pricePerGpuHour, gpus, perMillionOutputTokens }
}

/**
 * The one rule for `cost` options, used by the option check before a run and by
 * {@link costPerMillionOutputTokens}: a positive, finite price per GPU-hour (a price of 0 would make
 * every cost 0; leave `cost` out instead) and a whole number of GPUs >= 1 (default 1).
 *
 * @throws {OptionsError} naming the field and what to give instead.
 */
export function validateCostOptions(cost: unknown): asserts cost is CostOptions {
  const record =
    typeof cost === 'object' && cost !== null && !Array.isArray(cost) ? (cost as Record<string, unknown>) : undefined
  if (record !== undefined) rejectUnknownKeys(record, ['pricePerGpuHour', 'gpus'], 'cost')
  const price = record?.pricePerGpuHour
  if (typeof price !== 'number' || !Number.isFinite(price) || price <= 0) {
    throw new OptionsError(
      'cost.pricePerGpuHour',
      `must be a positive price per GPU-hour, got ${String(price)}`,
      'e.g. `cost: { pricePerGpuHour: 2.5, gpus: 1 }`.',
    )
  }
  const gpus = record?.gpus
  if (gpus !== undefined && !(typeof gpus === 'number' && Number.isInteger(gpus) && gpus >= 1)) {
    throw new OptionsError(
      'cost.gpus',
      `must be a whole number >= 1, got ${String(gpus)}`,
      'e.g. `cost: { pricePerGpuHour: 2.5, gpus: 8 }` (the GPUs serving the model).',
    )
  }
}
