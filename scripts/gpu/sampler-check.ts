/**
 * Checks the GPU telemetry against the real nvidia-smi on a machine with an NVIDIA GPU:
 *
 *   node scripts/gpu/sampler-check.ts --out <dir> [--gib 20] [--seconds 8]
 *
 * 1. Saves what nvidia-smi prints for the exact queries the sampler and the inventory make (the
 *    banner, `--version`, both `--query-gpu` forms, a second of `-lms 100`) to <dir>, as fixtures.
 * 2. Lists the GPUs with queryGpuInventory.
 * 3. Samples every 100 ms around a known load (scripts/gpu/torch-load.py: <gib> GiB held, bf16
 *    matrix products for <seconds> s) and checks what the sampler reports against it: memory peak
 *    at least the allocation above the level before, memory back down after, power and utilization
 *    up under load, energy equal to mean power x duration, one row per interval, no bursts, no
 *    nvidia-smi left running.
 * 4. Selects the GPU by UUID and by an index that does not exist.
 * 5. runBenchmark against the built-in simulator while the load runs: the result carries `gpu`,
 *    joules per output token and the GPU in the environment and fingerprint.
 *
 * Prints one line per check and writes <dir>/report.json; exits 1 when a check failed.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { runBenchmark } from '../../src/core/run.ts'
import { queryGpuInventory, startGpuSampler } from '../../src/core/telemetry/index.ts'
import { INVENTORY_FIELDS, SAMPLE_FIELDS } from '../../src/core/telemetry/nvidia-smi-csv.ts'
import type { GpuSample, GpuTelemetry } from '../../src/core/contract/result.ts'
import { startSimulator } from '../../src/sim/index.ts'

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'gpu-check' },
    gib: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '8' },
    python: { type: 'string', default: 'python3' },
    load: { type: 'string', default: new URL('./torch-load.py', import.meta.url).pathname },
  },
})
const outDir = values.out
const gib = Number(values.gib)
const seconds = Number(values.seconds)
mkdirSync(outDir, { recursive: true })

interface Check {
  name: string
  ok: boolean
  detail: string
}
const checks: Check[] = []
const report: Record<string, unknown> = {}
function check(name: string, ok: boolean, detail: string): void {
  checks.push({ name, ok, detail })
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${detail}`)
}

// 1. Raw output of the queries, as fixtures.
function capture(file: string, args: string[]): string {
  const started = performance.now()
  let text: string
  try {
    text = execFileSync('nvidia-smi', args, { encoding: 'utf8', timeout: 15_000 })
  } catch (error) {
    text = `ERROR ${String(error)}`
  }
  writeFileSync(join(outDir, file), text)
  console.log(`captured nvidia-smi ${args.join(' ')} -> ${file} (${(performance.now() - started).toFixed(0)} ms)`)
  return text
}
capture('banner.txt', [])
capture('version.txt', ['--version'])
capture('inventory.csv', [`--query-gpu=${INVENTORY_FIELDS.join(',')}`, '--format=csv,noheader,nounits'])
capture('sample.csv', [`--query-gpu=${SAMPLE_FIELDS.join(',')}`, '--format=csv,noheader,nounits'])
await captureLoop('sample-lms100.csv', 1200)

// 2. Inventory.
const inventory = await queryGpuInventory()
report.inventory = inventory
const first = inventory.gpus[0]
check(
  'inventory lists the GPUs',
  first !== undefined &&
    /NVIDIA/.test(first.name) &&
    (first.memoryTotalMiB ?? 0) > 0 &&
    first.driverVersion !== undefined &&
    first.cudaVersion !== undefined,
  JSON.stringify(inventory.gpus),
)

// 3. The sampler around a known load.
const intervalMs = 100
const t0 = performance.now()
const sampler = await startGpuSampler({ intervalMs })
const firstSampleMs = performance.now() - t0
check(
  'sampler starts',
  sampler.available,
  `first sample after ${firstSampleMs.toFixed(0)} ms${sampler.note ? `; ${sampler.note}` : ''}`,
)
await sleep(2000)
const loadStart = performance.now()
await sampler.markLoadStart(loadStart)
const load = await runLoad(gib, seconds, 0)
const loadEnd = performance.now()
const telemetry = await sampler.stop({ outputTokens: 1_000_000, startAt: loadStart, at: loadEnd })
report.telemetry = { ...telemetry, samples: telemetry.samples.length }
report.load = load
writeFileSync(join(outDir, 'samples.json'), JSON.stringify(telemetry.samples))
checkTelemetry(telemetry, load, loadStart, loadEnd)

// 4. Selection by UUID, and by an index nvidia-smi does not report.
if (first?.uuid !== undefined) {
  const byUuid = await startGpuSampler({ intervalMs, gpus: first.uuid })
  await sleep(500)
  const t = await byUuid.stop()
  check(
    'select by UUID',
    t.gpus.length === 1 && t.gpus[0]?.uuid === first.uuid && t.note === undefined,
    `${t.gpus.map((g) => g.uuid).join(',')}; note ${t.note ?? 'none'}`,
  )
}
const byMissing = await startGpuSampler({ intervalMs, gpus: '63' })
await sleep(300)
const missing = await byMissing.stop()
check(
  'select a missing index',
  missing.gpus.length === inventory.gpus.length && /matched no GPU/.test(missing.note ?? ''),
  missing.note ?? 'no note',
)

// 5. runBenchmark with telemetry on, against the simulator, while the GPU is loaded.
const sim = await startSimulator({ port: 0 })
try {
  const loadPromise = runLoad(gib, 6, 0)
  await sleep(1500)
  const result = await runBenchmark({
    target: { baseUrl: sim.url },
    workload: { kind: 'synthetic', inputTokens: { mean: 128 }, outputTokens: { mean: 32 } },
    load: { concurrency: 8, requests: 120 },
    warmup: { requests: 4 },
    seed: 1,
  })
  await loadPromise
  const gpu = result.gpu?.gpus[0]
  report.runBenchmark = {
    gpu: result.gpu && { ...result.gpu, samples: result.gpu.samples.length },
    environment: result.environment,
    warnings: result.warnings,
    durationMs: result.durationMs,
  }
  const outputTokens = Math.round(result.metrics.outputTokens.mean * result.metrics.outputTokens.count)
  check(
    'runBenchmark carries GPU telemetry',
    gpu !== undefined && (gpu.energyJ ?? 0) > 0 && gpu.energyPerOutputTokenJ !== undefined && (gpu.powerMeanW ?? 0) > 0,
    `gpu ${JSON.stringify(gpu)}; output tokens ${String(outputTokens)}; warnings ${JSON.stringify(result.warnings)}`,
  )
  if (gpu?.energyJ !== undefined && gpu.energyPerOutputTokenJ !== undefined) {
    check(
      'energy per output token = energy / output tokens',
      Math.abs(gpu.energyPerOutputTokenJ - gpu.energyJ / outputTokens) < 1e-9 * gpu.energyJ,
      `${gpu.energyPerOutputTokenJ} J/token`,
    )
  }
  const envGpu = result.environment.gpus[0]
  check(
    'environment names the GPU',
    envGpu !== undefined && envGpu.name === first?.name && envGpu.driverVersion === first?.driverVersion,
    JSON.stringify(result.environment.gpus),
  )
} finally {
  await sim.close()
}

const leftovers = pgrep('nvidia-smi')
check('no nvidia-smi left running', leftovers === '', leftovers === '' ? 'none' : leftovers)

report.checks = checks
writeFileSync(join(outDir, 'report.json'), JSON.stringify(report, null, 2))
const failed = checks.filter((c) => !c.ok).length
console.log(`${checks.length - failed} passed, ${failed} failed`)
process.exit(failed === 0 ? 0 : 1)

function checkTelemetry(t: GpuTelemetry, load: LoadResult, startAt: number, endAt: number): void {
  const gpu = t.gpus.find((g) => g.index === 0) ?? t.gpus[0]
  check('telemetry without a note', t.note === undefined, t.note ?? 'no note')
  if (gpu === undefined) return check('a GPU reported', false, 'no GPU in the telemetry')
  const rows = t.samples.filter((s) => s.index === gpu.index)
  const inWindow = rows.filter((s) => s.t >= startAt && s.t <= endAt)
  const expected = (endAt - startAt) / intervalMs
  check(
    'one row per interval',
    inWindow.length >= 0.7 * expected && inWindow.length <= 1.3 * expected + 2,
    `${inWindow.length} rows in ${(endAt - startAt).toFixed(0)} ms at ${intervalMs} ms (expected ~${expected.toFixed(0)})`,
  )
  const gaps = rows
    .slice(1)
    .map((s, i) => s.t - rows[i]!.t)
    .sort((a, b) => a - b)
  const median = gaps[Math.floor(gaps.length / 2)] ?? NaN
  const p99 = gaps[Math.min(gaps.length - 1, Math.floor(gaps.length * 0.99))] ?? NaN
  const min = gaps[0] ?? NaN
  report.gaps = { median, p99, min, count: gaps.length }
  check(
    'rows arrive on time',
    median > 0.7 * intervalMs && median < 1.3 * intervalMs,
    `gap median ${median.toFixed(1)} ms, min ${min.toFixed(1)}, p99 ${p99.toFixed(1)}`,
  )
  const before = gpu.memoryBeforeMiB ?? NaN
  const peak = gpu.memoryPeakMiB ?? NaN
  const after = gpu.memoryAfterMiB ?? NaN
  check(
    'memory peak covers the allocation',
    peak - before >= 0.95 * load.allocatedMiB,
    `before ${before} MiB, peak ${peak} MiB (+${peak - before}), torch allocated ${load.allocatedMiB} MiB`,
  )
  check('memory back down after the load', after - before < 1024, `after ${after} MiB`)
  const idle = meanPower(rows.filter((s) => s.t < startAt - 200))
  check(
    'power up under load',
    (gpu.powerMeanW ?? 0) > idle + 50,
    `idle ${idle.toFixed(1)} W, load mean ${gpu.powerMeanW?.toFixed(1)} W, peak ${gpu.powerPeakW?.toFixed(1)} W`,
  )
  check('utilization up under load', (gpu.utilizationMeanPct ?? 0) > 50, `mean ${gpu.utilizationMeanPct?.toFixed(1)} %`)
  const durationS = (endAt - startAt) / 1000
  const approx = (gpu.powerMeanW ?? NaN) * durationS
  check(
    'energy = mean power x duration (within 10 %)',
    Math.abs((gpu.energyJ ?? NaN) / approx - 1) < 0.1,
    `energy ${gpu.energyJ?.toFixed(0)} J, mean power x ${durationS.toFixed(2)} s = ${approx.toFixed(0)} J`,
  )
}

function meanPower(samples: readonly GpuSample[]): number {
  const watts = samples.map((s) => s.powerW).filter((w): w is number => w !== undefined)
  return watts.reduce((a, b) => a + b, 0) / Math.max(1, watts.length)
}

interface LoadResult {
  allocatedMiB: number
  busySeconds: number
  products: number
}

function runLoad(gibToHold: number, busySeconds: number, idleAfter: number): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      values.python,
      [values.load, '--gib', String(gibToHold), '--seconds', String(busySeconds), '--idle-after', String(idleAfter)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
    child.on('error', reject)
    child.on('close', (code) => {
      const line = out.trim().split('\n').pop() ?? ''
      if (code !== 0) return reject(new Error(`load exited with ${String(code)}: ${out}`))
      resolve(JSON.parse(line) as LoadResult)
    })
  })
}

async function captureLoop(file: string, durationMs: number): Promise<void> {
  const child = spawn(
    'nvidia-smi',
    [`--query-gpu=${SAMPLE_FIELDS.join(',')}`, '--format=csv,noheader,nounits', '-lms', '100'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let out = ''
  const arrivals: number[] = []
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    arrivals.push(performance.now())
    out += chunk
  })
  child.on('error', () => undefined)
  await sleep(durationMs)
  child.kill('SIGTERM')
  await new Promise((r) => child.on('close', r))
  writeFileSync(join(outDir, file), out)
  console.log(
    `captured nvidia-smi -lms 100 for ${durationMs} ms -> ${file}: ${out.split('\n').filter(Boolean).length} rows in ${arrivals.length} chunks`,
  )
}

function pgrep(name: string): string {
  try {
    return execFileSync('pgrep', ['-a', '-x', name], { encoding: 'utf8' }).trim()
  } catch {
    return ''
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}
