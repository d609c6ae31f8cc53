import {
  asParsedPolicy,
  defaultRegressionPolicy,
  undecidableGates,
  type ParsedRegressionPolicy,
  type RegressionPolicy,
} from '../core/verdict/index.ts'
import { OptionsError } from '../core/contract/errors.ts'
import { checkTarget, planRun, TARGET_KEYS, type RunPlan } from '../core/plan/index.ts'
import { rejectUnknownKeys } from '../core/contract/known-keys.ts'
import { armFromEnv, type ArmRun } from './arm-env.ts'
import { segmentFromEnv } from './segment-env.ts'
import { validateSloOptions, type SloOptions } from '../core/slo/index.ts'
import { resolveSimulatorOptions } from '../sim/options.ts'
import type { ResolvedSimulatorOptions, SimulatorOptions } from '../sim/options.ts'
import { DEFAULT_BENCH_TIMEOUT_MS, type BenchLlmOptions } from './bench-options.ts'
import { benchLimit, resolveTrials, type BenchLimit, type ResolvedTrials } from './bench-trials.ts'
import { isRecord } from '../core/contract/is-record.ts'

/** Every option `bench.llm` accepts (the core's, minus what the Vitest layer supplies, plus its own). */
export const BENCH_LLM_OPTION_KEYS = [
  'server',
  'target',
  'workload',
  'load',
  'warmup',
  'seed',
  'recordRequests',
  'goodput',
  'cost',
  'serverMetrics',
  'workers',
  'slo',
  'baseline',
  'timeoutMs',
  'resetPrefixCache',
  'trials',
  'stopWhen',
  'soak',
] as const satisfies ReadonlyArray<keyof BenchLlmOptions>

const SERVER_KINDS = ['simulator', 'launch', 'connect']

/** A bench's options parsed once, at collection: every trial of the bench runs from it. */
export interface BenchPlan {
  /** The run's options but the target (known once the server is up). */
  readonly run: RunPlan
  /** The SLOs, checked; undefined: none. */
  readonly slo: SloOptions | undefined
  /**
   * The regression policy, parsed: the bench's own `baseline`, else the plugin's tolerance, else its API's default
   * gates; `false`: no baseline.
   */
  readonly policy: ParsedRegressionPolicy | false
  /** Where {@link policy} came from: only gates the bench sets itself warn when its load cannot decide them. */
  readonly policyFrom: 'baseline' | 'tolerance' | 'default'
  /** Trials to record and compare, with their defaults. */
  readonly trials: ResolvedTrials
  /** The bench's time limit: `timeoutMs` (default 10 minutes) per trial, times the trials it may run. */
  readonly limit: BenchLimit
  /** The arm of an `ab` run this process measures (one trial, written for `ab` to judge); undefined: a bench run as usual. */
  readonly arm: ArmRun | undefined
  /**
   * The simulator's options, resolved: those of `server: simulator({...})`, or the defaults when the bench names no
   * server (it runs on a simulator of its own unless the plugin shares a server); undefined for another server.
   */
  readonly simulator: ResolvedSimulatorOptions | undefined
}

/**
 * Validates the options of `bench.llm` when the bench is registered (at collection), so a typo
 * fails in milliseconds, before any server starts or any request is sent: unknown option names
 * (with a "did you mean"), the core options (load, target, goodput, cost...), the SLOs, the
 * baseline policy, the timeout and a simulator's options. Workload files are read later, at run time.
 *
 * @throws {OptionsError} naming the option and how to fix it.
 */
export function planBench(
  name: unknown,
  options: unknown,
  env: Record<string, string | undefined> = process.env,
  tolerance?: RegressionPolicy,
): BenchPlan {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new OptionsError(
      'name',
      `must be a non-empty string, got ${JSON.stringify(name)}`,
      "Call bench.llm('what is measured', { workload, load }).",
    )
  }
  if (!isRecord(options)) {
    throw new OptionsError(
      'options',
      `bench.llm('${name}', options) needs an options object, got ${String(options)}`,
      'Pass `{ workload, load }` at least.',
    )
  }
  rejectUnknownKeys(options, BENCH_LLM_OPTION_KEYS, '', `bench.llm('${name}')`)
  const target = options.target
  if (target !== undefined && !isRecord(target)) {
    throw new OptionsError(
      'target',
      'must be an object',
      "e.g. `target: { api: 'completions' }` or `target: { baseUrl: 'http://127.0.0.1:8000' }`.",
    )
  }
  if (target !== undefined) rejectUnknownKeys(target, TARGET_KEYS, 'target')
  // The base URL is only known once the server runs: a target that names one is checked now, the
  // rest of it when the server is up (the plan's target is made per trial).
  if (typeof target?.baseUrl === 'string') checkTarget(target)
  // A host of a load split over machines runs its segment (docs/distributed.md); the environment says which.
  const segment = segmentFromEnv(env)
  const run = planRun({
    ...(options as unknown as BenchLlmOptions & { load: NonNullable<BenchLlmOptions['load']> }),
    ...(segment ? { segment } : {}),
  })
  if (options.slo !== undefined) validateSloOptions(options.slo as SloOptions)
  const policyFrom = options.baseline !== undefined ? 'baseline' : tolerance !== undefined ? 'tolerance' : 'default'
  const policy =
    options.baseline === false
      ? false
      : asParsedPolicy(
          (options.baseline as RegressionPolicy | undefined) ?? tolerance ?? defaultRegressionPolicy(options.target),
          policyFrom === 'tolerance' ? 'llmBench({ tolerance })' : 'baseline',
        )
  if (options.timeoutMs !== undefined) {
    const timeout = options.timeoutMs
    if (typeof timeout !== 'number' || !(timeout > 0) || !Number.isFinite(timeout)) {
      throw new OptionsError(
        'timeoutMs',
        `must be a positive number of milliseconds, got ${String(timeout)}`,
        'e.g. `timeoutMs: 30 * 60_000`, or leave it out for 10 minutes.',
      )
    }
  }
  if (options.resetPrefixCache !== undefined && typeof options.resetPrefixCache !== 'boolean') {
    throw new OptionsError(
      'resetPrefixCache',
      `must be true or false, got ${JSON.stringify(options.resetPrefixCache)}`,
      'Use `resetPrefixCache: true` to empty the server prefix cache before the bench.',
    )
  }
  if (run.soak && options.trials !== undefined) {
    throw new OptionsError('trials', 'a soak runs once: its windows are its repeats', 'Leave `trials` out of a soak.')
  }
  const trials = resolveTrials(run.soak ? { record: 1, max: 1 } : options.trials)
  const server = options.server
  if (server !== undefined) {
    if (!isRecord(server) || !SERVER_KINDS.includes(server.kind as string)) {
      throw new OptionsError(
        'server',
        'is not a server spec',
        'Use vllm({ model }), sglang(...), llamaCpp(...), command(...), connect(url) or simulator({...}).',
      )
    }
  }
  const simulator =
    server === undefined || server.kind === 'simulator'
      ? resolveSimulatorOptions(server?.options as SimulatorOptions | undefined)
      : undefined
  const arm = armFromEnv(env)
  const perTrialMs = (options.timeoutMs as number | undefined) ?? defaultTimeoutMs(run)
  // Arms together: the bench runs every pair, each as long as two arms' trials (the other arm's slices between its own).
  const limit =
    arm?.mode.kind === 'turns'
      ? benchLimit(2 * perTrialMs, { ...trials, record: arm.mode.pairs, max: arm.mode.pairs })
      : benchLimit(perTrialMs, trials)
  return { run, slo: options.slo as SloOptions | undefined, policy, policyFrom, trials, limit, arm, simulator }
}

/** Start-up, warm-up and probe time a soak's default time limit allows beside its load, ms. */
const SOAK_SETUP_MS = 600_000

/** A soak's trial lasts its duration, the drain and the recovery: the default limit is that plus the usual ten minutes. */
function defaultTimeoutMs(run: RunPlan): number {
  if (!run.soak) return DEFAULT_BENCH_TIMEOUT_MS
  return run.soak.durationMs + run.load.drainGraceMs + run.soak.recovery.withinMs + SOAK_SETUP_MS
}

/** Checks the options of `bench.llm` (see {@link planBench}). Throws {@link OptionsError}. */
export function validateBenchLlmOptions(name: unknown, options: unknown): asserts options is BenchLlmOptions {
  planBench(name, options)
}

/** Set to 1 to refuse, at collection, a bench whose gates cannot decide (see {@link warnUndecidableGates}). */
export const STRICT_GATES_ENV = 'LLM_BENCH_STRICT_GATES'

/**
 * Warns at collection about gates the bench set that cannot decide by construction (an open loop's throughput, a
 * p99 on too few requests), on stderr, or refuses the bench with {@link STRICT_GATES_ENV}=1. Call
 * after {@link validateBenchLlmOptions}.
 *
 * @throws {OptionsError} in strict mode, naming the gate and what to gate instead.
 */
export function warnUndecidableGates(
  name: string,
  plan: BenchPlan,
  env: Record<string, string | undefined> = process.env,
  warn: (line: string) => void = (line) => console.warn(line),
): void {
  // An arm of `ab` is judged by `ab`'s paired gates, not by these. The default gates never warn: only a gate the
  // user set can be changed by the user (an open loop's default throughput gate moves only once the server falls behind).
  if (plan.policy === false || plan.policyFrom !== 'baseline' || plan.arm || plan.run.soak) return
  const warnings = undecidableGates(plan.policy, plan.run.load)
  if (warnings.length === 0) return
  if (env[STRICT_GATES_ENV] === '1')
    throw new OptionsError(
      'baseline',
      `of bench.llm('${name}') cannot decide: ${warnings.join(' ')}`,
      `Change the gates, or unset ${STRICT_GATES_ENV}.`,
    )
  for (const warning of warnings) warn(`vitest-llm-bench: bench.llm('${name}'): ${warning}`)
}
