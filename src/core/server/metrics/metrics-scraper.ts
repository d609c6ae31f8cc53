import { requestText } from '../../platform/runtime-http.ts'
import { parsePrometheusText } from './prometheus-text.ts'
import { detectDialect } from './server-metric-names.ts'
import type { DialectNames } from './server-metric-names.ts'
import type { ServerMetricsScrape } from './server-metrics-window.ts'

/** Resolved options of the scraper (see `ServerMetricsOptions`). */
export interface ScraperSettings {
  /** Endpoints to try, in order; the first that serves metrics of a known server is kept. */
  urls: string[]
  /** Time between scrapes, ms. */
  intervalMs: number
  /** Limit of one scrape, ms. */
  timeoutMs: number
  /** Sent with each scrape (the bearer token where the endpoint is the target's own origin). */
  headers: Record<string, string>
}

/** A scraper that found metrics: scrape on demand, or every interval inside a window. */
export interface MetricsScraper {
  readonly url: string
  readonly names: DialectNames
  readonly intervalMs: number
  /** One scrape now (after any in flight). Never rejects: a failure is a scrape with `error`. */
  scrape(): Promise<ServerMetricsScrape>
  /** Takes the window's first scrape, then one every interval (never two at once). */
  startWindow(): Promise<void>
  /**
   * Stops the interval, takes the window's last scrape and returns every scrape of the window.
   * `lastScrape: false` (a server that stopped answering) returns the window as it is: a boundary
   * scrape of a hung server would only wait for its timeouts.
   */
  endWindow(options?: { lastScrape?: boolean }): Promise<ServerMetricsScrape[]>
  /** Stops the interval (idempotent). */
  stop(): void
}

/** Either a scraper, or the one line that says why there is none. */
export type ScraperStart = { scraper: MetricsScraper } | { note: string }

/**
 * A scrape may take at most this share of the time between scrapes: a slow endpoint (a large
 * exposition, a busy server) is scraped less often rather than kept busy, so the client's cost
 * and the server's stay bounded.
 */
const MAX_SCRAPE_SHARE = 0.05

/** Scrapes in a window beyond this are thinned (every other one dropped) so memory stays bounded on long runs. */
const MAX_WINDOW_SCRAPES = 4096

function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url)
    parsed.username = ''
    parsed.password = ''
    return parsed.toString()
  } catch {
    return url
  }
}

async function fetchExposition(
  url: string,
  settings: ScraperSettings,
): Promise<{ text: string } | { error: string; timedOut?: true }> {
  try {
    const response = await requestText(url, {
      headers: { accept: 'text/plain', ...settings.headers },
      signal: AbortSignal.timeout(settings.timeoutMs),
    })
    if (response.status !== 200)
      return {
        error: `HTTP ${response.status}${response.body ? `: ${response.body.trim().split('\n')[0]?.slice(0, 160)}` : ''}`,
      }
    return { text: response.body }
  } catch (error) {
    const name = (error as Error).name
    if (name === 'TimeoutError' || name === 'AbortError')
      return { error: `no answer within ${settings.timeoutMs} ms`, timedOut: true }
    return { error: (error as Error).message }
  }
}

/**
 * Finds the server's metrics endpoint and returns a scraper for it. Never rejects: a server
 * without metrics (404, llama-server started without `--metrics`, an unknown naming) gives the
 * one line that says so and what to do.
 */
export async function startMetricsScraper(settings: ScraperSettings): Promise<ScraperStart> {
  const tried: string[] = []
  for (const url of settings.urls) {
    const shown = withoutCredentials(url)
    const answer = await fetchExposition(url, settings)
    if ('error' in answer) {
      tried.push(`${shown} (${answer.error})`)
      // A server that lets a scrape hang is not asked at another path: the run waits once, at most.
      if (answer.timedOut) break
      continue
    }
    const exposition = parsePrometheusText(answer.text)
    const names = detectDialect(exposition)
    if (!names) {
      tried.push(`${shown} (${exposition.names.size} metrics, none of vLLM, SGLang, llama.cpp or TensorRT-LLM)`)
      continue
    }
    return { scraper: new IntervalScraper(url, shown, names, settings) }
  }
  return {
    note: `No server metrics: ${tried.join('; ')}. Start llama-server with \`--metrics\` (SGLang: \`--enable-metrics\`), or give the endpoint as \`serverMetrics: { url }\` (\`serverMetrics: false\` turns this off).`,
  }
}

class IntervalScraper implements MetricsScraper {
  readonly url: string
  readonly names: DialectNames
  readonly intervalMs: number
  readonly #target: string
  readonly #settings: ScraperSettings
  #chain: Promise<unknown> = Promise.resolve()
  #timer: ReturnType<typeof setInterval> | undefined
  #inFlight = false
  #stopped = false
  #window: ServerMetricsScrape[] = []

  constructor(target: string, shown: string, names: DialectNames, settings: ScraperSettings) {
    this.#target = target
    this.url = shown
    this.names = names
    this.intervalMs = settings.intervalMs
    this.#settings = settings
  }

  scrape(): Promise<ServerMetricsScrape> {
    const next = this.#chain.then(() => this.#scrapeOnce())
    this.#chain = next
    return next
  }

  async #scrapeOnce(): Promise<ServerMetricsScrape> {
    const began = performance.now()
    const answer = await fetchExposition(this.#target, this.#settings)
    if ('error' in answer) {
      const t = performance.now()
      return { t, durationMs: t - began, error: answer.error }
    }
    const exposition = parsePrometheusText(answer.text)
    const t = performance.now()
    return { t, durationMs: t - began, exposition }
  }

  /** A boundary scrape is retried once: a failed one would leave the window's counters unknown. */
  async #boundaryScrape(): Promise<ServerMetricsScrape> {
    const scrape = await this.scrape()
    return scrape.exposition ? scrape : this.scrape()
  }

  async startWindow(): Promise<void> {
    const first = await this.#boundaryScrape()
    // Stopped while that scrape was in flight (the run failed or was aborted): no timer may start.
    if (this.#stopped) return
    this.#window = [first]
    this.#timer = setInterval(() => {
      // A slow endpoint is not queued up: the next tick waits for the scrape in flight, and for
      // as long as the last scrape took, times 1 / MAX_SCRAPE_SHARE, from its end.
      const last = this.#window[this.#window.length - 1]
      if (this.#inFlight || (last && performance.now() - last.t < last.durationMs / MAX_SCRAPE_SHARE - last.durationMs))
        return
      this.#inFlight = true
      void this.scrape().then((scrape) => {
        this.#inFlight = false
        if (this.#timer === undefined) return
        this.#window.push(scrape)
        if (this.#window.length > MAX_WINDOW_SCRAPES)
          this.#window = this.#window.filter((_, i) => i % 2 === 0 || i === this.#window.length - 1)
      })
    }, this.intervalMs)
    this.#timer.unref?.()
  }

  async endWindow(options: { lastScrape?: boolean } = {}): Promise<ServerMetricsScrape[]> {
    this.stop()
    if (options.lastScrape === false) return [...this.#window]
    const last = await this.#boundaryScrape()
    return [...this.#window, last]
  }

  stop(): void {
    this.#stopped = true
    if (this.#timer !== undefined) clearInterval(this.#timer)
    this.#timer = undefined
  }
}
