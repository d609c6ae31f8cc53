import { OptionsError } from '../contract/errors.ts'
import type { SyntheticSessionSource } from '../contract/workload-options.ts'
import { createRandom, deriveSeed } from '../platform/random.ts'
import { resolveNumberDistribution, sampleNumber, type ResolvedNumberDistribution } from './number-distribution.ts'
import type { SessionScript, TurnScript } from './session-script.ts'
import { resolveLengthDistribution, sampleLength } from './token-lengths.ts'
import type { WordPromptBuilder } from './word-prompt.ts'

const SESSION_STREAM = 0x534553
const SYSTEM_STREAM = 0x535953
const TEXT_STREAM = 0x545854

/** `systemPromptTokens` when left out: no system prompt, tokens. */
export const DEFAULT_SYSTEM_PROMPT_TOKENS = 0

/** Generated sessions, each from its own seeded stream (session `i` is the same whatever else runs). */
export interface SyntheticSessions {
  session(index: number): SessionScript
  facts: Record<string, unknown>
  requestedUserTokensMean: number
  requestedOutputTokensMean: number
}

/**
 * Sessions of common-word messages: a system prompt shared by every session of the run (the
 * run's salt opens it, so sessions share it with each other but not with an earlier run), then
 * `turns` user messages with their reply lengths and think times.
 */
export function syntheticSessions(
  source: SyntheticSessionSource,
  builder: WordPromptBuilder,
  seed: number,
  thinkTime: ResolvedNumberDistribution,
  ignoreEos: boolean,
): SyntheticSessions {
  const turns = resolveNumberDistribution('workload.source.turns', source.turns, true)
  const user = resolveLengthDistribution('workload.source.userTokens', source.userTokens)
  const output = resolveLengthDistribution('workload.source.outputTokens', source.outputTokens)
  const systemPromptTokens = source.systemPromptTokens ?? DEFAULT_SYSTEM_PROMPT_TOKENS
  if (typeof systemPromptTokens !== 'number' || !Number.isInteger(systemPromptTokens) || systemPromptTokens < 0) {
    throw new OptionsError(
      'workload.source.systemPromptTokens',
      `must be a whole number of tokens >= 0, got ${String(systemPromptTokens)}`,
      'Use 0 (the default) for no system prompt.',
    )
  }
  // The salt opens the first message: the system prompt when there is one, else each session's first turn.
  const system =
    systemPromptTokens > 0
      ? builder.join(builder.randomWords(createRandom(deriveSeed(seed, SYSTEM_STREAM)), systemPromptTokens))
      : undefined
  const systemTokens = system === undefined ? 0 : builder.saltTokens + systemPromptTokens
  return {
    session(index: number): SessionScript {
      const random = createRandom(deriveSeed(seed, SESSION_STREAM, index))
      const count = sampleNumber(turns, random)
      const scripted: TurnScript[] = []
      for (let turn = 0; turn < count; turn++) {
        const userTokens = sampleLength(user, random)
        const maxTokens = sampleLength(output, random)
        const thinkMs = turn === 0 ? 0 : sampleNumber(thinkTime, random)
        const words = builder.randomWords(createRandom(deriveSeed(seed, TEXT_STREAM, index, turn)), userTokens)
        const salted = system === undefined && turn === 0
        scripted.push({
          role: 'user',
          content: salted ? builder.join(words) : words,
          contentTokens: userTokens + (salted ? builder.saltTokens : 0),
          maxTokens,
          thinkMs,
          spawn: [],
        })
      }
      return { id: `s${index}`, system, systemTokens, ignoreEos, turns: scripted }
    },
    facts: {
      turns: { ...turns, max: turns.max === Infinity ? null : turns.max },
      userTokens: { ...user, max: user.max === Infinity ? null : user.max },
      outputTokens: { ...output, max: output.max === Infinity ? null : output.max },
      systemPromptTokens,
    },
    requestedUserTokensMean: user.mean,
    requestedOutputTokensMean: output.mean,
  }
}
