import type { EnvironmentInfo } from '../src/core/contract/result.ts'
import { formatBytes, figureOrDash } from './format-figures.ts'
import { isRecord } from '../src/core/contract/is-record.ts'

function lengthText(value: unknown): string | undefined {
  if (!isRecord(value) || typeof value.mean !== 'number') return undefined
  const stddev = typeof value.stddev === 'number' && value.stddev > 0 ? `±${figureOrDash(value.stddev)}` : ''
  return `${figureOrDash(value.mean)}${stddev}`
}

function workloadText(workload: unknown): string | undefined {
  if (!isRecord(workload) || typeof workload.kind !== 'string') return undefined
  switch (workload.kind) {
    case 'synthetic': {
      const input = lengthText(workload.inputTokens)
      // The embeddings and rerank APIs send texts only: no output length.
      if (workload.outputTokens === undefined) return `synthetic texts of ${input ?? '?'} tokens${batchText(workload)}`
      const output = lengthText(workload.outputTokens)
      return `synthetic in ${input ?? '?'} / out ${output ?? '?'} tokens`
    }
    case 'prompts':
      return `${Array.isArray(workload.prompts) ? workload.prompts.length : '?'} fixed prompts${batchText(workload)}`
    default:
      return `${typeof workload.path === 'string' ? `${workload.kind} ${workload.path}` : workload.kind}${batchText(workload)}`
  }
}

/** `, 8 per request` for a workload that groups its texts (`batch`, embeddings and rerank); empty otherwise. */
function batchText(workload: Record<string, unknown>): string {
  return typeof workload.batch === 'number' ? `, ${workload.batch} per request` : ''
}

function loadText(load: unknown): string[] {
  if (!isRecord(load)) return []
  const parts: string[] = []
  if (typeof load.rate === 'number' || load.rate === 'Infinity') {
    const arrival = typeof load.arrival === 'string' ? load.arrival : 'poisson'
    parts.push(
      `${load.rate === Infinity || load.rate === 'Infinity' ? 'all at once' : `${figureOrDash(load.rate as number)} req/s ${arrival}`}`,
    )
    if (typeof load.burstiness === 'number' && load.burstiness !== 1)
      parts.push(`burstiness ${figureOrDash(load.burstiness)}`)
  }
  if (typeof load.concurrency === 'number')
    parts.push(`${typeof load.rate === 'number' ? 'max ' : ''}concurrency ${load.concurrency}`)
  if (isRecord(load.rampUp) && typeof load.rampUp.durationMs === 'number')
    parts.push(`ramp-up ${figureOrDash(load.rampUp.durationMs / 1000)} s`)
  if (typeof load.requests === 'number') parts.push(`${load.requests} requests`)
  if (typeof load.durationMs === 'number') parts.push(`${figureOrDash(load.durationMs / 1000)} s`)
  return parts
}

/** The configuration in one line: API, workload, load, warm-up and seed. */
export function configSummary(config: Record<string, unknown>): string {
  const parts: string[] = []
  if (isRecord(config.target) && typeof config.target.api === 'string') parts.push(config.target.api)
  const workload = workloadText(config.workload)
  if (workload) parts.push(workload)
  parts.push(...loadText(config.load))
  if (isRecord(config.warmup)) {
    if (typeof config.warmup.requests === 'number') parts.push(`warm-up ${config.warmup.requests}`)
    else if (typeof config.warmup.durationMs === 'number')
      parts.push(`warm-up ${figureOrDash(config.warmup.durationMs / 1000)} s`)
  }
  if (typeof config.seed === 'number') parts.push(`seed ${config.seed}`)
  return parts.join(' · ')
}

function gpuText(gpus: EnvironmentInfo['gpus']): string {
  if (gpus.length === 0) return 'no GPU'
  const names = new Map<string, number>()
  for (const gpu of gpus) names.set(gpu.name, (names.get(gpu.name) ?? 0) + 1)
  const driver = gpus[0]?.driverVersion
  return `${[...names].map(([name, count]) => `${count}x ${name}`).join(', ')}${driver ? ` (driver ${driver})` : ''}`
}

/** The environment in one line: runtime, host, GPUs, server and model. */
export function environmentSummary(environment: EnvironmentInfo): string {
  const { host, server } = environment
  const cpu = host.cpuModel ? `${host.cpuModel}${host.cpuCores ? ` (${host.cpuCores} cores)` : ''}` : undefined
  const serverText = server.name ? `${server.name}${server.version ? ` ${server.version}` : ''}` : undefined
  return [
    `${environment.runtime.name} ${environment.runtime.version}`,
    `${host.platform} ${host.arch}`,
    cpu,
    gpuText(environment.gpus),
    serverText,
    server.model,
  ]
    .filter((part): part is string => part !== undefined && part !== '')
    .join(' · ')
}

/** The environment inventory as label/value rows (HTML and Markdown tables). */
export function environmentRows(environment: EnvironmentInfo): Array<[string, string]> {
  const { host, server } = environment
  const rows: Array<[string, string | undefined]> = [
    ['runtime', `${environment.runtime.name} ${environment.runtime.version}`],
    ['vitest-llm-bench', environment.toolVersion],
    ['host', [host.hostname, `${host.platform} ${host.arch}`].filter(Boolean).join(' · ')],
    ['os', host.os],
    ['cpu', host.cpuModel ? `${host.cpuModel}${host.cpuCores ? ` (${host.cpuCores} cores)` : ''}` : undefined],
    ['memory', host.memoryBytes ? formatBytes(host.memoryBytes) : undefined],
    ['gpus', gpuText(environment.gpus)],
  ]
  for (const gpu of environment.gpus) {
    const details = [
      gpu.memoryTotalMiB ? `${gpu.memoryTotalMiB} MiB` : undefined,
      gpu.driverVersion ? `driver ${gpu.driverVersion}` : undefined,
      gpu.cudaVersion ? `CUDA ${gpu.cudaVersion}` : undefined,
    ]
    rows.push([`gpu ${gpu.index}`, [gpu.name, ...details].filter(Boolean).join(' · ')])
  }
  rows.push(
    ['server', server.name ? `${server.name}${server.version ? ` ${server.version}` : ''}` : undefined],
    ['model', server.model],
    ['max context', server.maxContextTokens ? `${server.maxContextTokens} tokens` : undefined],
    ['launch', server.launch ? [server.launch.command, ...server.launch.args].join(' ') : undefined],
  )
  return rows.filter((row): row is [string, string] => row[1] !== undefined && row[1] !== '')
}

function leafText(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value)
  return JSON.stringify(value) ?? String(value)
}

/** The configuration flattened to `path: value` rows (`load.concurrency: 8`); arrays longer than 8 items are summarised. */
export function configRows(config: Record<string, unknown>): Array<[string, string]> {
  const rows: Array<[string, string]> = []
  const walk = (value: unknown, path: string): void => {
    if (isRecord(value)) {
      const keys = Object.keys(value)
      if (keys.length === 0) rows.push([path, '{}'])
      for (const key of keys) if (value[key] !== undefined) walk(value[key], path ? `${path}.${key}` : key)
    } else if (Array.isArray(value) && value.length > 8) {
      rows.push([path, `[${value.length} items]`])
    } else {
      rows.push([path, leafText(value)])
    }
  }
  walk(config, '')
  return rows
}
