import type { EnvironmentInfo } from '../contract/result.ts'

/**
 * What a baseline was measured on, in two parts: the machine (GPU, driver, runtime, CPU: a change
 * means no relative verdict, see {@link diffMachine}) and the software under test (server, version,
 * model: compared and named, see {@link diffSoftware}).
 * Fields that could not be detected are absent. The host name is left out on purpose (CI runners
 * change names, not hardware).
 */
export interface Fingerprint {
  /** GPU model, e.g. `NVIDIA H200`; distinct models joined with ` + ` (sorted). Absent without GPUs. */
  gpuModel?: string
  /** Number of GPUs seen by the driver (0 when none or no NVIDIA driver). */
  gpuCount: number
  /** NVIDIA driver version. */
  driverVersion?: string
  /** Serving engine, e.g. `vllm`. */
  serverName?: string
  /** Serving engine version, e.g. `0.11.0`. */
  serverVersion?: string
  /** Model served. */
  model?: string
  /** JavaScript runtime of the load generator (`node`, `bun`, `deno`). */
  runtimeName: string
  /** Its version; only the major version takes part in comparisons (patch releases do not move results). */
  runtimeVersion: string
  /** CPU model of the load-generating host. */
  cpuModel?: string
}

/** The {@link Fingerprint} of a run's environment. */
export function fingerprintOf(env: EnvironmentInfo): Fingerprint {
  const names = [...new Set(env.gpus.map((gpu) => gpu.name.trim()).filter((name) => name !== ''))].sort()
  const drivers = [
    ...new Set(env.gpus.map((gpu) => gpu.driverVersion).filter((v): v is string => v !== undefined && v !== '')),
  ].sort()
  const fingerprint: Fingerprint = {
    gpuCount: env.gpus.length,
    runtimeName: env.runtime.name,
    runtimeVersion: env.runtime.version,
  }
  if (names.length > 0) fingerprint.gpuModel = names.join(' + ')
  if (drivers.length > 0) fingerprint.driverVersion = drivers.join(' + ')
  if (env.server.name) fingerprint.serverName = env.server.name
  if (env.server.version) fingerprint.serverVersion = env.server.version
  if (env.server.model) fingerprint.model = env.server.model
  if (env.host.cpuModel) fingerprint.cpuModel = env.host.cpuModel.trim()
  return fingerprint
}

function show(value: string | undefined): string {
  return value === undefined || value === '' ? 'unknown' : value
}

function gpuText(fingerprint: Fingerprint, withCount: boolean): string {
  if (fingerprint.gpuCount === 0) return 'none'
  const model = show(fingerprint.gpuModel)
  return withCount ? `${fingerprint.gpuCount} x ${model}` : model
}

function majorVersion(version: string): string {
  return version.replace(/^v/, '').split('.')[0] ?? version
}

/**
 * What differs in the machine between the fingerprint a baseline was recorded with and the current
 * one: GPU model and count, NVIDIA driver, the load generator's runtime (name and major version)
 * and CPU model. One human-readable change per entry, e.g. `GPU NVIDIA A100-SXM4-80GB -> NVIDIA H200`.
 * Empty when they match. A field known on one side only counts as a change (shown as `unknown`): a
 * baseline from an H200 must not be compared with a run whose GPU could not be detected. A machine
 * change means no relative verdict: the figures measure another machine.
 */
export function diffMachine(baseline: Fingerprint, current: Fingerprint): string[] {
  const changes: string[] = []
  if (baseline.gpuModel !== current.gpuModel || baseline.gpuCount !== current.gpuCount) {
    const withCount = baseline.gpuCount !== current.gpuCount && baseline.gpuCount > 0 && current.gpuCount > 0
    changes.push(`GPU ${gpuText(baseline, withCount)} -> ${gpuText(current, withCount)}`)
  }
  if (baseline.driverVersion !== current.driverVersion) {
    changes.push(`NVIDIA driver ${show(baseline.driverVersion)} -> ${show(current.driverVersion)}`)
  }
  if (
    baseline.runtimeName !== current.runtimeName ||
    majorVersion(baseline.runtimeVersion) !== majorVersion(current.runtimeVersion)
  ) {
    changes.push(
      `runtime ${baseline.runtimeName} ${baseline.runtimeVersion} -> ${current.runtimeName} ${current.runtimeVersion}`,
    )
  }
  if (baseline.cpuModel !== current.cpuModel)
    changes.push(`CPU ${show(baseline.cpuModel)} -> ${show(current.cpuModel)}`)
  return changes
}

/**
 * What differs in the software under test: the server's name and version (llama.cpp: its build)
 * and the model it serves, e.g. `vllm 0.10.1 -> 0.11.0`. Empty when they match. These are what a
 * team compares (an upgrade, another build, another quantization), so a change here is judged and
 * named in the verdict, never refused.
 */
export function diffSoftware(baseline: Fingerprint, current: Fingerprint): string[] {
  const changes: string[] = []
  if (baseline.serverName !== current.serverName) {
    const before = [show(baseline.serverName), baseline.serverVersion].filter(Boolean).join(' ')
    const after = [show(current.serverName), current.serverVersion].filter(Boolean).join(' ')
    changes.push(`server ${before} -> ${after}`)
  } else if (baseline.serverVersion !== current.serverVersion) {
    changes.push(`${show(current.serverName)} ${show(baseline.serverVersion)} -> ${show(current.serverVersion)}`)
  }
  if (baseline.model !== current.model) changes.push(`model ${show(baseline.model)} -> ${show(current.model)}`)
  return changes
}
