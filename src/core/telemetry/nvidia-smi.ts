import { execa } from 'execa'
import { formatDurationMs } from '../platform/format-figure.ts'

/** Environment variable naming the nvidia-smi binary (a path or a name looked up on PATH). */
export const NVIDIA_SMI_ENV = 'LLM_BENCH_NVIDIA_SMI'

/** How to run nvidia-smi. */
export interface NvidiaSmiOptions {
  /** Path or name of the nvidia-smi binary. Default: `$LLM_BENCH_NVIDIA_SMI`, else `nvidia-smi` found on PATH. */
  nvidiaSmi?: string
  /** Limit for one query, in milliseconds; a hung nvidia-smi is killed after it. Default 15000. */
  timeoutMs?: number
}

/** Why nvidia-smi gave no data. */
export type NvidiaSmiUnavailableReason = 'not-found' | 'no-driver' | 'no-devices' | 'timeout' | 'failed'

export type NvidiaSmiOutcome =
  | { ok: true; stdout: string }
  | { ok: false; reason: NvidiaSmiUnavailableReason; /** One line for humans. */ message: string }

/** Default limit of a one-shot query: a first call without persistence mode can take seconds. */
export const DEFAULT_NVIDIA_SMI_TIMEOUT_MS = 15_000

/** The binary to run: the option, else `$LLM_BENCH_NVIDIA_SMI`, else `nvidia-smi` (looked up on PATH). */
export function resolveNvidiaSmi(explicit?: string): string {
  const fromEnv = typeof process !== 'undefined' ? process.env[NVIDIA_SMI_ENV] : undefined
  return explicit ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnv : 'nvidia-smi')
}

/** Runs nvidia-smi once and classifies any failure; never throws. */
export async function runNvidiaSmi(args: readonly string[], options: NvidiaSmiOptions = {}): Promise<NvidiaSmiOutcome> {
  const bin = resolveNvidiaSmi(options.nvidiaSmi)
  const timeoutMs = options.timeoutMs ?? DEFAULT_NVIDIA_SMI_TIMEOUT_MS
  const result = await execa(bin, args, {
    reject: false,
    timeout: timeoutMs,
    forceKillAfterDelay: 1000,
    stdin: 'ignore',
    encoding: 'utf8',
  })
  if (!result.failed) return { ok: true, stdout: String(result.stdout) }
  return {
    ok: false,
    ...classifyNvidiaSmiFailure(bin, {
      errorCode: (result as { code?: string }).code,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      timeoutMs,
      output: `${String(result.stdout)}\n${String(result.stderr)}`,
    }),
  }
}

/** Facts about a failed nvidia-smi run. */
export interface NvidiaSmiFailure {
  /** Node's error code of the spawn (`ENOENT` when the binary is missing). */
  errorCode?: string | undefined
  exitCode?: number | undefined
  timedOut?: boolean
  /** The limit that was exceeded, ms (for the message). */
  timeoutMs?: number
  /** What it printed on stdout and stderr. */
  output?: string
}

/** Maps a failed run to a reason and one line that says what to check. */
export function classifyNvidiaSmiFailure(
  bin: string,
  failure: NvidiaSmiFailure,
): { reason: NvidiaSmiUnavailableReason; message: string } {
  const output = failure.output ?? ''
  if (failure.errorCode === 'ENOENT' || failure.errorCode === 'EACCES') {
    return {
      reason: 'not-found',
      message: `${bin} was not found or is not executable (no NVIDIA driver here?); set ${NVIDIA_SMI_ENV} to its path if this machine has an NVIDIA GPU`,
    }
  }
  if (failure.timedOut) {
    return {
      reason: 'timeout',
      message: `${bin} printed nothing within ${formatDurationMs(failure.timeoutMs ?? 0)} and was stopped (is the driver hung?)`,
    }
  }
  // nvidia-smi prints this and exits with 9 when the kernel module is absent (e.g. a container started without --gpus).
  if (failure.exitCode === 9 || /couldn't communicate with the NVIDIA driver/i.test(output)) {
    return {
      reason: 'no-driver',
      message: `${bin} could not communicate with the NVIDIA driver (exit code ${failure.exitCode ?? '?'}): is the driver loaded, and the container started with GPU access?`,
    }
  }
  if (failure.exitCode === 6 || /No devices were found/i.test(output)) {
    return { reason: 'no-devices', message: `${bin} found no NVIDIA GPU` }
  }
  const firstLine = output
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '')
  return {
    reason: 'failed',
    message: `${bin} failed (exit code ${failure.exitCode ?? '?'})${firstLine ? `: ${firstLine}` : ''}`,
  }
}
