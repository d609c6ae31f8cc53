import os from 'node:os'
import type { EnvironmentInfo } from '../contract/result.ts'

/** Options of {@link collectHostInfo}. */
export interface HostInfoOptions {
  /** Limit for systeminformation, ms; past it the `node:os` facts are used. Default 5000. */
  timeoutMs?: number
  /** Include the host name (it lands in results and baselines). Default true. */
  hostname?: boolean
}

type HostInfo = EnvironmentInfo['host']

let cached: Promise<HostInfo> | undefined

/**
 * Logical cores, total memory and OS from systeminformation (which can take seconds: it is bounded by
 * a timeout and asked once per process), falling back to `node:os`; the CPU model from `node:os`
 * (the same text whatever systeminformation does). Never throws.
 */
export async function collectHostInfo(options: HostInfoOptions = {}): Promise<HostInfo> {
  cached ??= readHostInfo(options.timeoutMs ?? 5000)
  const host = { ...(await cached) }
  if (options.hostname === false) delete host.hostname
  return host
}

/** Forgets the cached host facts (tests). */
export function resetHostInfoCache(): void {
  cached = undefined
}

async function readHostInfo(timeoutMs: number): Promise<HostInfo> {
  const fallback = fromNodeOs()
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs)
    // A slow systeminformation must not keep the process alive.
    ;(timer as { unref?: () => void }).unref?.()
  })
  const facts = await Promise.race([fromSysteminformation().catch(() => undefined), timeout])
  clearTimeout(timer)
  const host = { ...fallback, ...facts }
  // The CPU model is part of a baseline's fingerprint, so it must not depend on whether
  // systeminformation answered in time: `node:os` gives it at once, and systeminformation's (which
  // spells it differently, e.g. without "(R)") only stands in when `node:os` has none.
  if (fallback.cpuModel !== undefined) host.cpuModel = fallback.cpuModel
  return host
}

async function fromSysteminformation(): Promise<Partial<HostInfo>> {
  // Loaded on demand: it is a large module and most runs that never ask should not pay for it.
  const si = await import('systeminformation')
  const [cpu, mem, osInfo] = await Promise.all([si.cpu(), si.mem(), si.osInfo()])
  const facts: Partial<HostInfo> = {}
  const cpuModel = `${cpu.manufacturer} ${cpu.brand}`.trim()
  if (cpuModel !== '') facts.cpuModel = cpuModel
  if (cpu.cores > 0) facts.cpuCores = cpu.cores
  if (mem.total > 0) facts.memoryBytes = mem.total
  const osName = [osInfo.distro, osInfo.release].filter((part) => part && part !== 'unknown').join(' ')
  if (osName !== '') facts.os = osInfo.kernel ? `${osName} (kernel ${osInfo.kernel})` : osName
  if (osInfo.hostname) facts.hostname = osInfo.hostname
  return facts
}

function fromNodeOs(): HostInfo {
  const cpus = os.cpus()
  const host: HostInfo = { platform: process.platform, arch: process.arch, hostname: os.hostname() }
  if (cpus[0]?.model) host.cpuModel = cpus[0].model.trim()
  if (cpus.length > 0) host.cpuCores = cpus.length
  host.memoryBytes = os.totalmem()
  host.os = `${os.type()} ${os.release()}`
  return host
}
