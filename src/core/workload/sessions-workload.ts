import { OptionsError } from '../contract/errors.ts'
import type { AgenticTraceWorkload, SessionsWorkload } from '../contract/workload-options.ts'
import type { WorkloadFacts } from '../contract/result.ts'
import { isRecord } from '../contract/is-record.ts'
import { createRandom, deriveSeed } from '../platform/random.ts'
import { readAgenticTrace } from './agentic-trace.ts'
import { readJsonlSessions, readShareGptSessions, type DatasetSessions } from './dataset-sessions.ts'
import { estimateTokens } from './estimate-tokens.ts'
import {
  NO_THINK_TIME,
  resolveNumberDistribution,
  sampleNumber,
  type ResolvedNumberDistribution,
} from './number-distribution.ts'
import { newRunSalt } from './run-salt.ts'
import { firstTurnRequest, type SessionScript, type SessionWorkload } from './session-script.ts'
import { syntheticSessions } from './synthetic-sessions.ts'
import { ignoreEosOf } from './to-prepared-request.ts'
import { WordPromptBuilder } from './word-prompt.ts'
import type { WorkloadContext } from './workload.ts'

const THINK_STREAM = 0x54484b
const SOURCES = ['synthetic', 'sharegpt', 'jsonl']

function sessionWorkload(
  context: WorkloadContext,
  size: number | undefined,
  session: (index: number) => SessionScript,
  describe: () => WorkloadFacts,
  timestampsMs?: number[],
): SessionWorkload {
  return {
    unit: 'session',
    size,
    session,
    next: (index) => firstTurnRequest(context.api, session(index)),
    describe,
    ...(timestampsMs ? { timestampsMs } : {}),
  }
}

/** Dataset sessions as scripts: think times from the file where it gives them, else drawn per session and turn. */
function datasetScripts(
  read: DatasetSessions,
  thinkTime: ResolvedNumberDistribution,
  seed: number,
  ignoreEos: boolean,
  countTokens: (text: string) => number,
): (index: number) => SessionScript {
  return (index) => {
    const at = ((index % read.sessions.length) + read.sessions.length) % read.sessions.length
    const session = read.sessions[at] as DatasetSessions['sessions'][number]
    const random = createRandom(deriveSeed(seed, THINK_STREAM, index))
    return {
      id: `s${index}`,
      system: session.system,
      systemTokens: session.system === undefined ? 0 : countTokens(session.system),
      ignoreEos,
      turns: session.turns.map((turn, i) => ({
        role: 'user',
        content: turn.content,
        contentTokens: turn.contentTokens,
        maxTokens: turn.maxTokens,
        thinkMs: turn.thinkMs ?? (i === 0 ? 0 : sampleNumber(thinkTime, random)),
        spawn: [],
      })),
    }
  }
}

const mean = (values: number[]): number =>
  values.length === 0 ? 0 : values.reduce((sum, v) => sum + v, 0) / values.length

/**
 * Multi-turn sessions ({@link SessionsWorkload}): generated, every turn of a ShareGPT file, or a
 * JSONL session file. Files are read and checked whole before anything is sent.
 */
export async function createSessionsWorkload(
  options: SessionsWorkload,
  context: WorkloadContext,
): Promise<SessionWorkload> {
  const source = options.source as unknown
  if (!isRecord(source) || !SOURCES.includes(source.kind as string)) {
    throw new OptionsError(
      'workload.source',
      `must be an object with a kind of ${SOURCES.map((k) => `'${k}'`).join(', ')}, got ${JSON.stringify(source)}`,
      "e.g. `source: { kind: 'synthetic', turns: { mean: 4 }, userTokens: { mean: 64 }, outputTokens: { mean: 32 } }`.",
    )
  }
  const thinkTime =
    options.thinkTimeMs === undefined
      ? NO_THINK_TIME
      : resolveNumberDistribution('workload.thinkTimeMs', options.thinkTimeMs, false)
  const ignoreEos = ignoreEosOf(options)
  const countTokens = context.countTokens ?? estimateTokens
  const counter = context.countTokens ? 'given by the caller' : 'estimate (GPT-2 pre-tokens)'
  const base = {
    kind: 'sessions' as const,
    seed: context.seed,
    source: options.source.kind,
    thinkTimeMs: thinkTime,
    ignoreEos,
    tokenCounter: counter,
  }

  if (options.source.kind === 'synthetic') {
    const salt = context.salt ?? newRunSalt()
    const builder = new WordPromptBuilder(countTokens, salt)
    const generated = syntheticSessions(options.source, builder, context.seed, thinkTime, ignoreEos)
    return sessionWorkload(context, undefined, generated.session, () => ({
      ...base,
      ...generated.facts,
      salt,
      saltTokens: builder.saltTokens,
      requestedInputTokensMean: generated.requestedUserTokensMean,
      requestedOutputTokensMean: generated.requestedOutputTokensMean,
    }))
  }
  const read =
    options.source.kind === 'sharegpt'
      ? await readShareGptSessions(options.source, countTokens, context.seed)
      : await readJsonlSessions(options.source, countTokens)
  const turns = read.sessions.flatMap((session) => session.turns)
  const withMax = turns.filter((turn) => turn.maxTokens !== undefined)
  return sessionWorkload(
    context,
    read.sessions.length,
    datasetScripts(read, thinkTime, context.seed, ignoreEos, countTokens),
    () => ({
      ...base,
      ...read.facts,
      path: options.source.kind === 'synthetic' ? undefined : options.source.path,
      sha256: read.file.sha256,
      bytes: read.file.bytes,
      salt: null,
      sessions: read.sessions.length,
      turnsPerSessionMean: turns.length / read.sessions.length,
      requestedInputTokensMean: mean(turns.map((turn) => turn.contentTokens)),
      requestedOutputTokensMean: withMax.length > 0 ? mean(withMax.map((turn) => turn.maxTokens as number)) : null,
    }),
  )
}

/** Replay of an agentic trace ({@link AgenticTraceWorkload}): root sessions at their timestamps, sub-agents on fan-out. */
export async function createAgenticTraceWorkload(
  options: AgenticTraceWorkload,
  context: WorkloadContext,
): Promise<SessionWorkload> {
  const ignoreEos = ignoreEosOf(options)
  const countTokens = context.countTokens ?? estimateTokens
  const salt = context.salt ?? newRunSalt()
  const builder = new WordPromptBuilder(countTokens, salt)
  const trace = await readAgenticTrace(options, builder, countTokens, context.seed, ignoreEos)
  return sessionWorkload(
    context,
    trace.roots,
    trace.session,
    () => ({
      kind: 'agentic-trace',
      path: options.path,
      sha256: trace.file.sha256,
      bytes: trace.file.bytes,
      seed: context.seed,
      salt,
      ignoreEos,
      ...trace.facts,
      requestedInputTokensMean: trace.requestedInputTokensMean,
      requestedOutputTokensMean: trace.requestedOutputTokensMean,
    }),
    trace.startOffsetsMs,
  )
}
