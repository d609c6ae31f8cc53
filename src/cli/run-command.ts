import { mkdir, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { constants } from 'node:os'
import { renderConsoleEntry } from '../../reporters/console-table.ts'
import { DEFAULT_PROGRESS_INTERVAL_MS } from '../../reporters/console-reporter.ts'
import { toJsonReport } from '../../reporters/json-report.ts'
import { formatProgressLine } from '../../reporters/progress-line.ts'
import type { ReportEntry } from '../../reporters/report-entry.ts'
import { acquireTarget, type AcquiredTarget } from '../bench/bench-target.ts'
import { isCI } from '../bench/ci.ts'
import { API_KINDS, isApiKind, takesInputs } from '../core/contract/api-kinds.ts'
import { CliUsageError, OptionsError, ServerStartError } from '../core/contract/errors.ts'
import type { BenchmarkOptions, LoadOptions, Progress } from '../core/contract/options.ts'
import type { BenchmarkResult } from '../core/contract/result.ts'
import { checkTarget, planRun, runConfigOf } from '../core/plan/index.ts'
import { redactUrlCredentials } from '../core/platform/redact.ts'
import { runPlan } from '../core/run.ts'
import { llamaCpp } from '../core/server/index.ts'
import type { CliCommand, CliFlagValues, CliIo } from './cli-command.ts'

const COMMAND = 'run'
const PROGRAM = `vitest-llm-bench ${COMMAND}`
/** The bench name of a run in its results.json: one name, so that `diff` pairs two runs of any server. */
export const RUN_BENCH_NAME = 'vitest-llm-bench run'
const HELD_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
/** Requests behind the live TTFT median of the progress line. */
const RECENT_TTFT_WINDOW = 256

/** `--request-rate`: requests per second, or `inf` (vLLM's spelling) for every request at once. */
function requestRateOf(raw: string): number {
  if (/^(inf|infinity)$/i.test(raw.trim())) return Number.POSITIVE_INFINITY
  const rate = raw.trim() === '' ? NaN : Number(raw)
  if (!Number.isFinite(rate) || rate <= 0)
    throw new CliUsageError(
      `Invalid value for --request-rate: expected requests per second above 0, or inf, got '${raw}'.`,
      COMMAND,
    )
  return rate
}

/** `--server-args '-t 2 -np 4'` as arguments: split on white space, quotes (' or ") keep a value whole. */
export function splitServerArgs(text: string): string[] {
  const args: string[] = []
  for (const match of text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) args.push(match[1] ?? match[2] ?? match[3] ?? '')
  return args
}

/** The run's options from its flags, without the target (known once a launched server is up). */
export function runOptionsFromFlags(flags: CliFlagValues): Omit<BenchmarkOptions, 'target'> {
  const concurrency = typeof flags['max-concurrency'] === 'number' ? flags['max-concurrency'] : undefined
  const rateFlag = flags['request-rate']
  // As vllm bench serve: no rate is an infinite one (every request at once), capped by --max-concurrency.
  // A cap alone is a closed loop at that many in flight, the engine's form of the same load.
  const rate = typeof rateFlag === 'string' ? requestRateOf(rateFlag) : concurrency === undefined ? Infinity : undefined
  const load: LoadOptions = {
    requests: Number(flags['num-prompts']),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(rate !== undefined ? { rate } : {}),
  }
  const warmups = Number(flags['num-warmups'] ?? 0)
  // Embeddings and rerank answer in one body: no output length to ask for.
  const inputsOnly = isApiKind(flags.api) && takesInputs(flags.api)
  return {
    workload: {
      kind: 'synthetic',
      inputTokens: { mean: Number(flags['random-input-len']) },
      ...(inputsOnly ? {} : { outputTokens: { mean: Number(flags['random-output-len']) } }),
    },
    load,
    ...(warmups > 0 ? { warmup: { requests: warmups } } : {}),
    seed: Number(flags.seed ?? 0),
  }
}

/** Where the load goes: a running server's URL, or llama-server launched on a GGUF file (the flags checked). */
function serverOf(flags: CliFlagValues): { url: string } | { modelPath: string; args: string[]; bin?: string } {
  const url = typeof flags['base-url'] === 'string' ? flags['base-url'] : undefined
  const gguf = typeof flags['llama-cpp'] === 'string' ? flags['llama-cpp'] : undefined
  const serverArgs = typeof flags['server-args'] === 'string' ? flags['server-args'] : undefined
  const bin = typeof flags['server-bin'] === 'string' ? flags['server-bin'] : undefined
  if (url !== undefined && gguf !== undefined)
    throw new CliUsageError(
      '--base-url and --llama-cpp both name the server: give --base-url for a server that runs, ' +
        'or --llama-cpp <model.gguf> to launch llama-server, not both.',
      COMMAND,
    )
  if (gguf === undefined && (serverArgs !== undefined || bin !== undefined))
    throw new CliUsageError(
      `--${serverArgs !== undefined ? 'server-args' : 'server-bin'} is for a launched server: ` +
        'add --llama-cpp <model.gguf>, or leave it out with --base-url.',
      COMMAND,
    )
  if (gguf !== undefined)
    return { modelPath: resolve(gguf), args: splitServerArgs(serverArgs ?? ''), ...(bin ? { bin } : {}) }
  if (url === undefined)
    throw new CliUsageError(
      'No server to measure: give --base-url http://127.0.0.1:8000 (a server that runs), ' +
        'or --llama-cpp <model.gguf> to launch llama-server. ' +
        'No server at hand? Start the simulator: `npx vitest-llm-bench sim --port 8000`.',
      COMMAND,
    )
  return { url }
}

/** Prints a progress line every few seconds, and at once when the server falls silent. */
function progressPrinter(io: CliIo, label: string): (progress: Progress) => void {
  const recent: number[] = []
  let last = performance.now()
  let silent = false
  return (progress) => {
    if (progress.ttftMs !== undefined) {
      recent.push(progress.ttftMs)
      if (recent.length > RECENT_TTFT_WINDOW) recent.shift()
    }
    const now = performance.now()
    const newSilence = progress.silentMs !== undefined && !silent
    silent = progress.silentMs !== undefined
    if (!newSilence && progress.stopping === undefined && now - last < DEFAULT_PROGRESS_INTERVAL_MS) return
    last = now
    const sorted = [...recent].sort((a, b) => a - b)
    const ttftP50Ms = sorted[Math.floor((sorted.length - 1) / 2)]
    io.err(
      `  … ${formatProgressLine(label, {
        done: progress.done,
        elapsedMs: progress.elapsedMs,
        outputTokens: progress.outputTokens,
        ...(progress.total !== undefined ? { total: progress.total } : {}),
        ...(ttftP50Ms !== undefined ? { ttftP50Ms } : {}),
        ...(progress.silentMs !== undefined ? { silentMs: progress.silentMs, inFlight: progress.inFlight ?? 0 } : {}),
        ...(progress.stopping !== undefined ? { stopping: progress.stopping } : {}),
      })}`,
    )
  }
}

/** The exit code a signal means (130 for SIGINT), as a shell reports it. */
function signalExitCode(signal: string): number {
  return 128 + (constants.signals[signal as NodeJS.Signals] ?? 2)
}

/**
 * `vitest-llm-bench run --base-url <url> | --llama-cpp <model.gguf>`: one benchmark of a server from
 * the shell, as `vllm bench serve` runs one, through the engine a bench runs (`planRun`, `runPlan`),
 * with vLLM's flag names. Prints the console table of a bench and writes `<out>/results.json`, a
 * JSON report `diff` reads. A launched server is stopped when the run ends, fails or is interrupted.
 * Exit 0 measured, 1 when no request completed or the server failed, 2 on a bad command line, 128+n
 * when stopped by a signal.
 */
async function runRun(flags: CliFlagValues, io: CliIo): Promise<number> {
  const server = serverOf(flags)
  const options = runOptionsFromFlags(flags)
  const targetFlags = {
    ...(typeof flags.api === 'string' ? { api: flags.api as BenchmarkOptions['target']['api'] } : {}),
    ...(typeof flags.model === 'string' ? { model: flags.model } : {}),
  }
  let run
  try {
    // Every option checked before a server is launched or a request sent.
    run = planRun(options)
    if ('url' in server) checkTarget({ baseUrl: server.url, ...targetFlags })
  } catch (error) {
    if (!(error instanceof OptionsError)) throw error
    throw new CliUsageError(error.message, COMMAND)
  }
  const label =
    'url' in server ? redactUrlCredentials(server.url).replace(/\/+$/, '') : `llama-server ${server.modelPath}`
  const out = resolve(String(flags.out))

  const controller = new AbortController()
  let stoppedBy: string | undefined
  const stop = (signal: string) => {
    stoppedBy ??= signal
    controller.abort(new Error(signal))
  }
  void io.stopRequested().then(stop)
  // Held while the run lasts: the launched server's hooks stop it on a signal, then end the process
  // unless someone else listens; this command ends itself, after writing what was measured. A second
  // signal ends it at once (the exit hook kills what is left).
  let signalled = false
  const held = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(signalExitCode(stoppedBy ?? signal))
    signalled = true
    stop(signal)
  }
  for (const signal of HELD_SIGNALS) process.on(signal, held)
  let acquired: AcquiredTarget | undefined
  try {
    try {
      acquired =
        'url' in server
          ? await acquireTarget(undefined, { baseUrl: server.url, ...targetFlags }, undefined)
          : await acquireTarget(
              llamaCpp({ modelPath: server.modelPath, args: server.args, ...(server.bin ? { bin: server.bin } : {}) }),
              targetFlags,
              undefined,
              { fresh: true },
            )
    } catch (error) {
      if (stoppedBy !== undefined) {
        io.err(`${PROGRAM}: stopped (${stoppedBy}) before the server was ready; nothing measured.`)
        return signalExitCode(stoppedBy)
      }
      if (error instanceof ServerStartError && /was not found/.test(error.message))
        throw new ServerStartError(`${error.message} Give the llama-server executable with --server-bin <path>.`)
      throw error
    }
    io.err(
      `${PROGRAM}: ${String(options.load.requests)} requests to ${'url' in server ? label : acquired.target.baseUrl}` +
        ` (${loadText(options.load)}), results to ${join(out, 'results.json')}`,
    )
    let result: BenchmarkResult
    try {
      result = await runPlan(
        { target: checkTarget(acquired.target), run, config: runConfigOf({ ...options, target: acquired.target }) },
        { ...acquired.context, signal: controller.signal, onProgress: progressPrinter(io, RUN_BENCH_NAME) },
      )
    } catch (error) {
      if (stoppedBy === undefined) throw error
      io.err(`${PROGRAM}: stopped (${stoppedBy}) before a result; nothing written.`)
      return signalExitCode(stoppedBy)
    }
    const ended = acquired.serverEnded()
    const completed = result.counts.completed > 0
    const entry: ReportEntry = {
      name: RUN_BENCH_NAME,
      file: label,
      state: completed && ended === undefined ? 'passed' : 'failed',
      result,
    }
    if (ended) entry.failure = `${ended.name} ${ended.how}${ended.logPath ? `; its log: ${ended.logPath}` : ''}`
    else if (!completed) entry.failure = 'no request completed: see the errors above'
    io.out(renderConsoleEntry(entry, { color: process.stdout.isTTY === true && !isCI() }))
    await mkdir(out, { recursive: true })
    const report = toJsonReport([entry], stoppedBy !== undefined ? { interrupted: stoppedBy } : {})
    await writeFile(join(out, 'results.json'), `${JSON.stringify(report, null, 2)}\n`)
    io.out(`\nResults written to ${join(out, 'results.json')}`)
    if (entry.failure !== undefined) io.err(`${PROGRAM}: ${entry.failure}`)
    if (stoppedBy !== undefined) {
      io.err(`${PROGRAM}: stopped (${stoppedBy}); the results hold what finished before it.`)
      return signalExitCode(stoppedBy)
    }
    return entry.state === 'passed' ? 0 : 1
  } finally {
    await acquired?.release()
    // After a signal the listener stays: the server's hooks re-raise the signal once they stopped it,
    // which with no listener left would end the process before it sets its exit code.
    if (!signalled) for (const signal of HELD_SIGNALS) process.off(signal, held)
  }
}

function loadText(load: LoadOptions): string {
  const rate = load.rate === undefined ? undefined : load.rate === Infinity ? 'all at once' : `${load.rate} req/s`
  const cap = load.concurrency === undefined ? undefined : `${load.concurrency} in flight at most`
  return [rate, cap].filter((part) => part !== undefined).join(', ')
}

export const runCommand: CliCommand = {
  summary: 'Measure a server from the shell (as vllm bench serve): the console table, and results.json for diff',
  exits: '0 measured; 1 no request completed; 2 a usage error; 130 or 143 stopped by SIGINT or SIGTERM',
  flags: {
    'base-url': { type: 'string', description: 'Root URL of a running server, e.g. http://127.0.0.1:8000' },
    'llama-cpp': {
      type: 'string',
      description: 'Or launch llama-server on this GGUF model, stopped when the run ends',
    },
    'server-args': {
      type: 'string',
      description: "More llama-server arguments, one quoted string, e.g. '-t 2 -np 4 -c 4096'",
    },
    'server-bin': { type: 'string', description: 'The llama-server executable (default: llama-server on PATH)' },
    api: {
      type: 'string',
      description: 'API to drive',
      choices: API_KINDS,
      default: 'chat',
    },
    model: { type: 'string', description: 'Model name sent (default: the first of GET /v1/models)' },
    'max-concurrency': {
      type: 'integer',
      description: 'Requests in flight at most; alone, a closed loop at this many',
      min: 1,
    },
    'request-rate': {
      type: 'string',
      description: 'Requests per second (Poisson arrivals), or inf: every request at once (default inf)',
    },
    'num-prompts': { type: 'integer', description: 'Measured requests', default: 100, min: 1 },
    'random-input-len': { type: 'integer', description: 'Prompt length, tokens', default: 128, min: 1 },
    'random-output-len': {
      type: 'integer',
      description: 'Output length asked (max_tokens; none for embeddings and rerank)',
      default: 128,
      min: 1,
    },
    'num-warmups': { type: 'integer', description: 'Warm-up requests, not measured', default: 0, min: 0 },
    seed: { type: 'integer', description: 'Seed of prompts, lengths and arrivals', default: 0 },
    out: { type: 'string', description: 'Folder for results.json', default: 'llm-bench-run' },
  },
  run: runRun,
}
