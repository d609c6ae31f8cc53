import { OptionsError } from '../../contract/errors.ts'
import { isRecord } from '../../contract/is-record.ts'
import type { ServerMetricsOptions } from '../../contract/options.ts'
import type { ScraperSettings } from './metrics-scraper.ts'
import { rejectUnknownKeys } from '../../contract/known-keys.ts'

/** Default time between scrapes, ms (AIPerf scrapes every 333 ms; a second keeps vLLM's API process out of the way). */
export const DEFAULT_SCRAPE_INTERVAL_MS = 1000
/** Shortest allowed time between scrapes, ms. */
export const MIN_SCRAPE_INTERVAL_MS = 100
/** Default limit of one scrape, ms. */
export const DEFAULT_SCRAPE_TIMEOUT_MS = 5000

const KEYS = ['url', 'intervalMs', 'timeoutMs']

const hasAuthorization = (headers: Record<string, string>): boolean =>
  Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')

/**
 * Checks the `serverMetrics` option: `false`, or `{ url?, intervalMs?, timeoutMs? }`.
 *
 * @throws {OptionsError} naming the field and what to write instead.
 */
export function validateServerMetricsOptions(
  value: unknown,
): asserts value is ServerMetricsOptions | false | undefined {
  if (value === undefined || value === false) return
  if (!isRecord(value))
    throw new OptionsError(
      'serverMetrics',
      'must be an object or false',
      'Write e.g. `serverMetrics: { url: "http://127.0.0.1:8000/metrics" }`, or `serverMetrics: false` to turn scraping off.',
    )
  rejectUnknownKeys(value, KEYS, 'serverMetrics')
  if (value.url !== undefined) {
    let protocol = ''
    try {
      protocol = new URL(String(value.url)).protocol
    } catch {
      // reported below
    }
    if (typeof value.url !== 'string' || (protocol !== 'http:' && protocol !== 'https:')) {
      throw new OptionsError(
        'serverMetrics.url',
        `${JSON.stringify(value.url)} is not an http(s) URL`,
        'Give the full endpoint, e.g. `http://127.0.0.1:8000/metrics`.',
      )
    }
  }
  const { intervalMs, timeoutMs } = value
  if (
    intervalMs !== undefined &&
    (typeof intervalMs !== 'number' || !Number.isFinite(intervalMs) || intervalMs < MIN_SCRAPE_INTERVAL_MS)
  ) {
    throw new OptionsError(
      'serverMetrics.intervalMs',
      `${String(intervalMs)} is not a valid interval`,
      `Use milliseconds of at least ${MIN_SCRAPE_INTERVAL_MS} (default ${DEFAULT_SCRAPE_INTERVAL_MS}).`,
    )
  }
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0)) {
    throw new OptionsError(
      'serverMetrics.timeoutMs',
      `${String(timeoutMs)} is not a valid limit`,
      `Use milliseconds above 0 (default ${DEFAULT_SCRAPE_TIMEOUT_MS}).`,
    )
  }
}

/**
 * The scraper's settings for a target, or undefined when scraping is off. Without a `url` the
 * target's `/metrics` is tried, then `/prometheus/metrics` (TensorRT-LLM). The API key and the
 * target's headers go only to the target's own origin. Expects options `validateOptions` checked.
 */
export function resolveServerMetricsOptions(
  value: ServerMetricsOptions | false | undefined,
  baseUrl: string,
  apiKey: string | undefined,
  targetHeaders: Record<string, string> = {},
): ScraperSettings | undefined {
  if (value === false) return undefined
  const options = value ?? {}
  const urls = options.url !== undefined ? [options.url] : [`${baseUrl}/metrics`, `${baseUrl}/prometheus/metrics`]
  const sameOrigin = urls.every((url) => new URL(url).origin === new URL(baseUrl).origin)
  return {
    urls,
    intervalMs: options.intervalMs ?? DEFAULT_SCRAPE_INTERVAL_MS,
    timeoutMs: options.timeoutMs ?? DEFAULT_SCRAPE_TIMEOUT_MS,
    // The target's own headers and key (a gateway may ask for them on every path), only to its origin.
    headers: sameOrigin
      ? {
          ...(apiKey && !hasAuthorization(targetHeaders) ? { authorization: `Bearer ${apiKey}` } : {}),
          ...targetHeaders,
        }
      : {},
  }
}
