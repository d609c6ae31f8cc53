/**
 * The server's own metrics over one run, as an extension of the run: found before the probe, scraped before and
 * after the run's first request (what it found cached, what an earlier run left), over the measured window, and
 * summarized with the client's TTFT (client minus server) into the result's `server` side.
 */
import type { MetricSummary } from '../../contract/result.ts'
import type { ServerSide } from '../../contract/server-metrics.ts'
import { startMetricsScraper, type MetricsScraper, type ScraperSettings, type ScraperStart } from './metrics-scraper.ts'
import {
  SERVER_NOTE_PREFIX,
  summarizeServerMetrics,
  type FirstRequestScrapes,
  type ServerMetricsScrape,
} from './server-metrics-window.ts'

/** What the watch adds to a result: the server side (metrics, or why there are none) and its notes as warnings. */
export interface ServerMetricsPart {
  server: ServerSide | undefined
  warnings: string[]
}

/** One run's server metrics, step by step as the run calls them (each step a no-op when nothing is scraped). */
export class ServerMetricsWatch {
  readonly #start: ScraperStart | undefined
  #beforeProbe: ServerMetricsScrape | undefined
  #afterFirstProbe: ServerMetricsScrape | undefined
  #window: ServerMetricsScrape[] | undefined

  private constructor(start: ScraperStart | undefined) {
    this.#start = start
  }

  /** Finds the endpoint (`settings` undefined: scraping is off). */
  static async start(settings: ScraperSettings | undefined): Promise<ServerMetricsWatch> {
    return new ServerMetricsWatch(settings ? await startMetricsScraper(settings) : undefined)
  }

  /** The scraper, where the endpoint was found (a soak reads the server's gauges through it after its load). */
  get scraper(): MetricsScraper | undefined {
    return this.#start && 'scraper' in this.#start ? this.#start.scraper : undefined
  }

  /** Before the probe, the run's first request. */
  async beforeProbe(): Promise<void> {
    this.#beforeProbe = await this.scraper?.scrape()
  }

  /** Before each attempt of the probe: the first attempt's scrape is after the run's first request. */
  async onProbeAttempt(attempt: number): Promise<void> {
    if (attempt === 1 && this.scraper) this.#afterFirstProbe = await this.scraper.scrape()
  }

  /** After the probe (a probe of one attempt has not scraped after its request yet). */
  async afterProbe(): Promise<void> {
    this.#afterFirstProbe ??= await this.scraper?.scrape()
  }

  /** The window's first scrape, before the first measured dispatch: its counters hold the warm-up. */
  async beforeLoad(): Promise<void> {
    await this.scraper?.startWindow()
  }

  /** The window's last scrape; none from a server that stopped answering (it would only wait for its timeouts). */
  async afterLoad(stalled: boolean): Promise<void> {
    this.#window = await this.scraper?.endWindow({ lastScrape: !stalled })
  }

  /** The result's server side, with the client's TTFT to compare the server's with. */
  part(clientTtftMs: MetricSummary): ServerMetricsPart {
    const scraper = this.scraper
    if (scraper && this.#window) {
      const firstRequest: FirstRequestScrapes | undefined =
        this.#beforeProbe && this.#afterFirstProbe
          ? { before: this.#beforeProbe, after: this.#afterFirstProbe }
          : undefined
      const metrics = summarizeServerMetrics({
        names: scraper.names,
        url: scraper.url,
        intervalMs: scraper.intervalMs,
        scrapes: this.#window,
        clientTtftMs,
        ...(firstRequest ? { firstRequest } : {}),
      })
      return { server: { metrics }, warnings: metrics.notes.map((note) => `${SERVER_NOTE_PREFIX}${note}`) }
    }
    if (this.#start && 'note' in this.#start) return { server: { note: this.#start.note }, warnings: [] }
    return { server: undefined, warnings: [] }
  }

  /** Stops scraping (idempotent). */
  stop(): void {
    this.scraper?.stop()
  }
}
