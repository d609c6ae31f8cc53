/**
 * The HTML report in a real browser: headless Chromium (Debian's `chromium` package) loads the
 * report of the fixed entries from a file, with no network. It must log no console message (a
 * script error, a blocked resource and a CSP violation all log one), every chart must have data
 * points in the rendered DOM, and the screenshot must show the series in their colours.
 *
 * Skips, saying why, when Chromium is not installed (`apt-get install -y chromium`).
 * `LLM_BENCH_REPORT_SCREENSHOT=docs/report-screenshot.png` also copies the screenshot there.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { inflateSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { renderHtml } from '../../reporters/index.ts'
import { isCI } from '../../src/bench/ci.ts'
import { baselinesFor, reportEntries } from '../helpers/reporter-fixtures.ts'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const available = existsSync(CHROMIUM)
const SKIP_REASON = `Chromium not found at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH) to run the browser test of the HTML report.`
if (!available) console.warn(`[html-report] skipped: ${SKIP_REASON}`)

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--hide-scrollbars',
  '--force-device-scale-factor=1',
  // Console messages (errors, CSP violations, uncaught exceptions) go to stderr as INFO:CONSOLE lines.
  '--enable-logging=stderr',
  '--v=0',
]

let dir: string
let reportUrl: string
let curveMarkers = 0

function chromium(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      CHROMIUM,
      [...FLAGS, ...args],
      { timeout: 90_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`chromium failed: ${error.message}\n${stderr}`))
        else resolvePromise({ stdout, stderr })
      },
    )
  })
}

function consoleLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.includes(':CONSOLE'))
}

/** RGB pixels of an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes). */
function decodePng(png: Buffer): {
  width: number
  height: number
  pixel(x: number, y: number): [number, number, number]
} {
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a')
  let offset = 8
  let width = 0
  let height = 0
  let channels = 0
  const data: Buffer[] = []
  while (offset < png.length) {
    const length = png.readUInt32BE(offset)
    const type = png.toString('latin1', offset + 4, offset + 8)
    const body = png.subarray(offset + 8, offset + 8 + length)
    if (type === 'IHDR') {
      width = body.readUInt32BE(0)
      height = body.readUInt32BE(4)
      expect(body[8], 'bit depth').toBe(8)
      expect(body[12], 'interlace').toBe(0)
      channels = body[9] === 6 ? 4 : body[9] === 2 ? 3 : 0
      expect(channels, 'colour type RGB or RGBA').toBeGreaterThan(0)
    } else if (type === 'IDAT') data.push(body)
    offset += 12 + length
  }
  const raw = inflateSync(Buffer.concat(data))
  const stride = width * channels
  const pixels = Buffer.alloc(height * stride)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]
    for (let x = 0; x < stride; x++) {
      const value = raw[y * (stride + 1) + 1 + x]!
      const left = x >= channels ? pixels[y * stride + x - channels]! : 0
      const up = y > 0 ? pixels[(y - 1) * stride + x]! : 0
      const upLeft = y > 0 && x >= channels ? pixels[(y - 1) * stride + x - channels]! : 0
      let predicted = 0
      if (filter === 1) predicted = left
      else if (filter === 2) predicted = up
      else if (filter === 3) predicted = (left + up) >> 1
      else if (filter === 4) {
        const p = left + up - upLeft
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)]
        predicted = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft
      }
      pixels[y * stride + x] = (value + predicted) & 0xff
    }
  }
  return {
    width,
    height,
    pixel: (x, y) => {
      const at = y * stride + x * channels
      return [pixels[at]!, pixels[at + 1]!, pixels[at + 2]!]
    },
  }
}

function countColour(image: ReturnType<typeof decodePng>, hex: string): number {
  const target = [1, 3, 5].map((start) => parseInt(hex.slice(start, start + 2), 16))
  let count = 0
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const [r, g, b] = image.pixel(x, y)
      if (Math.abs(r - target[0]!) <= 6 && Math.abs(g - target[1]!) <= 6 && Math.abs(b - target[2]!) <= 6) count++
    }
  }
  return count
}

beforeAll(async () => {
  if (!available) return
  dir = await mkdtemp(join(tmpdir(), 'llm-html-browser-'))
  const entries = reportEntries()
  // A sweep's throughput-latency curve, one labelled point per swept value, as collectReport builds it.
  const curvePoints = entries
    .map((entry) => ({ x: entry.result.metrics.ttftMs.p99, y: entry.result.throughput.outputTokensPerSec }))
    .sort((a, b) => a.x - b.x)
    .map((point, i) => ({ ...point, label: `concurrency ${2 ** (i + 2)}` }))
  curveMarkers = curvePoints.length
  const html = renderHtml(entries, {
    baselines: baselinesFor(entries),
    generatedAt: '2025-01-01T12:03:00.000Z',
    curves: [
      {
        title: 'chat > concurrency sweep: output tokens/s against TTFT p99',
        xLabel: 'TTFT p99 (ms)',
        yLabel: 'output tokens/s',
        points: curvePoints,
      },
    ],
  })
  const path = join(dir, 'report.html')
  await writeFile(path, html)
  reportUrl = pathToFileURL(path).href
})

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('HTML report in headless Chromium', () => {
  test('renders without console errors and every chart has data points', async (ctx) => {
    if (!available) {
      // CI installs Chromium (.ci/run): there a missing browser is a failure, not a skip.
      if (isCI()) throw new Error(SKIP_REASON)
      ctx.skip(SKIP_REASON)
    }
    const { stdout, stderr } = await chromium([`--user-data-dir=${join(dir, 'profile-dom')}`, '--dump-dom', reportUrl])
    expect(consoleLines(stderr)).toEqual([])
    const charts = [...stdout.matchAll(/<figure class="chart" data-chart="([^"]+)" data-points="(\d+)">/g)]
    expect(charts.map((match) => match[1])).toEqual(
      expect.arrayContaining([
        'ttft-cdf',
        'e2e-cdf',
        'tokens-over-time',
        'in-flight-over-time',
        'gpu-memory',
        'gpu-power',
        'curve-1',
      ]),
    )
    expect(charts).toHaveLength(13)
    // The sweep curve: one marker per swept value, each with its label.
    expect(charts.find((match) => match[1] === 'curve-1')?.[2]).toBe(String(curveMarkers))
    expect(stdout.match(/<circle class="marker"/g)).toHaveLength(curveMarkers)
    expect(stdout).toContain('concurrency 4')
    for (const match of charts) expect(Number(match[2]), match[1]).toBeGreaterThan(0)
    const paths = [...stdout.matchAll(/<path class="series" data-series="([^"]+)" data-points="(\d+)" d="([^"]*)"/g)]
    expect(paths.length).toBeGreaterThanOrEqual(16)
    for (const [, name, points, d] of paths) {
      expect(Number(points), name).toBeGreaterThan(1)
      expect(d!.startsWith('M'), name).toBe(true)
      expect((d!.match(/[MLH]/g) ?? []).length, name).toBe(Number(points))
    }
    expect(paths.filter((match) => match[1] === 'baseline')).toHaveLength(4)
  })

  test('the screenshot shows the charts', async (ctx) => {
    if (!available) {
      // CI installs Chromium (.ci/run): there a missing browser is a failure, not a skip.
      if (isCI()) throw new Error(SKIP_REASON)
      ctx.skip(SKIP_REASON)
    }
    const png = join(dir, 'report.png')
    const { stderr } = await chromium([
      `--user-data-dir=${join(dir, 'profile-shot')}`,
      '--window-size=1280,2300',
      `--screenshot=${png}`,
      reportUrl,
    ])
    expect(consoleLines(stderr)).toEqual([])
    const image = decodePng(await readFile(png))
    expect([image.width, image.height]).toEqual([1280, 2300])
    // Current series (blue), baseline CDFs (grey), second GPU (vermilion), failing badge (red).
    expect(countColour(image, '#0072b2')).toBeGreaterThan(2000)
    expect(countColour(image, '#8c959f')).toBeGreaterThan(300)
    expect(countColour(image, '#d55e00')).toBeGreaterThan(300)
    expect(countColour(image, '#cf222e')).toBeGreaterThan(50)
    const target = process.env.LLM_BENCH_REPORT_SCREENSHOT
    if (target) await copyFile(png, resolve(target))
  })
})
