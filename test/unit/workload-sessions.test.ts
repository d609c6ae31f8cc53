import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, onTestFinished } from 'vitest'
import { createWorkload } from '../../src/core/workload/create-workload.ts'
import { isSessionWorkload, turnRequest, type SessionWorkload } from '../../src/core/workload/session-script.ts'
import type { WorkloadOptions } from '../../src/core/contract/workload-options.ts'

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/sessions/${name}`, import.meta.url))
const words = (text: string) => text.split(' ').length

async function sessions(options: WorkloadOptions, api: 'chat' | 'completions' = 'chat'): Promise<SessionWorkload> {
  const workload = await createWorkload(options, { seed: 1, api, salt: 'salt' })
  if (!isSessionWorkload(workload)) throw new Error('not a session workload')
  return workload
}

describe('session workloads', () => {
  it('synthetic: each session is drawn from its own stream (same index, same script), with the shared system prompt and think times after turn 1', async () => {
    const options: WorkloadOptions = {
      kind: 'sessions',
      source: {
        kind: 'synthetic',
        turns: { mean: 4, stddev: 2, min: 1, max: 8 },
        userTokens: { mean: 20 },
        outputTokens: { mean: 10 },
        systemPromptTokens: 30,
      },
      thinkTimeMs: { mean: 500, stddev: 100 },
    }
    const one = await sessions(options)
    const two = await sessions(options)
    expect(two.session(5)).toEqual(one.session(5))
    const counts = Array.from({ length: 40 }, (_, i) => one.session(i).turns.length)
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(1)
    expect(Math.max(...counts)).toBeLessThanOrEqual(8)
    expect(new Set(counts).size).toBeGreaterThan(2)
    const script = one.session(3)
    expect(script.system).toBe(one.session(4).system)
    expect(script.system?.startsWith('salt ')).toBe(true)
    expect(script.systemTokens).toBe(31) // the salt and 30 words
    expect(script.turns[0]?.thinkMs).toBe(0)
    for (const turn of script.turns.slice(1)) expect(turn.thinkMs).toBeGreaterThan(0)
    for (const turn of script.turns) {
      expect(words(turn.content)).toBe(20)
      expect(turn.maxTokens).toBe(10)
    }
    expect(one.describe()).toMatchObject({
      kind: 'sessions',
      source: 'synthetic',
      salt: 'salt',
      requestedInputTokensMean: 20,
      requestedOutputTokensMean: 10,
      ignoreEos: true,
    })
  })

  it('turn k sends the system prompt, the earlier messages with the replies, then the new message (chat); completions joins the texts', async () => {
    const workload = await sessions({ kind: 'sessions', source: { kind: 'jsonl', path: fixture('chats.jsonl') } })
    const script = workload.session(0)
    const history = [
      { role: 'system' as const, content: script.system as string },
      { role: 'user' as const, content: script.turns[0]?.content as string },
      { role: 'assistant' as const, content: 'Check the queue.' },
    ]
    const request = turnRequest('chat', script, history, script.turns[1] as never, 40)
    expect(request.messages).toEqual([...history, { role: 'user', content: 'The queue is long. Then what?' }])
    expect(request.maxTokens).toBe(12)
    expect(request.keepOutputText).toBe(true)
    // The history's 40 plus the estimate of the new message: 6 words and 2 punctuation marks.
    expect(request.expectedInputTokens).toBe(40 + 8)
    const prompt = turnRequest('completions', script, history, script.turns[1] as never, 40).prompt
    expect(prompt).toBe(
      `${script.system}\n\n${script.turns[0]?.content}\n\nCheck the queue.\n\nThe queue is long. Then what?`,
    )
    // The probe and the warm-up send a first turn alone, and keep no text.
    expect(workload.next(0)).toMatchObject({ messages: [history[0], history[1]], maxTokens: 12 })
    expect(workload.next(0).keepOutputText).toBeUndefined()
  })

  it('JSONL sessions: think_ms overrides thinkTimeMs; sessions cycle past the end', async () => {
    const workload = await sessions({
      kind: 'sessions',
      source: { kind: 'jsonl', path: fixture('chats.jsonl') },
      thinkTimeMs: { mean: 1000 },
    })
    expect(workload.session(0).turns.map((t) => t.thinkMs)).toEqual([0, 20, 1000])
    expect(workload.session(1).turns.map((t) => t.content)).toEqual([
      'Name three sorting algorithms.',
      'Which is stable?',
    ])
    expect(workload.session(1).system).toBeUndefined()
    expect(workload.session(2).turns).toEqual(workload.session(0).turns)
    expect(workload.size).toBe(2)
  })

  it('ShareGPT sessions: every human turn with its reply length, the system turn kept, an entry without a question skipped, a last question without reply dropped', async () => {
    const workload = await sessions({
      kind: 'sessions',
      source: { kind: 'sharegpt', path: fixture('multi-turn-sharegpt.json') },
    })
    expect(workload.size).toBe(2)
    const scripts = [workload.session(0), workload.session(1)]
    const trains = scripts.find((s) => s.system !== undefined)
    const haiku = scripts.find((s) => s.system === undefined)
    expect(trains?.system).toBe('You answer about trains.')
    expect(trains?.turns.map((t) => t.content)).toEqual([
      'How fast does a high speed train go in France today?',
      'And in Japan?',
      'Which came first?',
    ])
    // max_tokens: the estimated length of the dataset's reply, which is never sent (words and punctuation: 13 + 1, 11 + 2, 3 + 2).
    expect(trains?.turns.map((t) => t.maxTokens)).toEqual([14, 13, 5])
    expect(haiku?.turns).toHaveLength(1)
    expect(workload.describe()).toMatchObject({ entries: 3, skipped: 1, sessions: 2, ignoreEos: false })
    const cut = await sessions({
      kind: 'sessions',
      source: { kind: 'sharegpt', path: fixture('multi-turn-sharegpt.json'), maxTurns: 2, outputTokens: 7 },
    })
    const cutTrains = [cut.session(0), cut.session(1)].find((s) => s.system !== undefined)
    expect(cutTrains?.turns.map((t) => t.maxTokens)).toEqual([7, 7])
    // With a fixed output length, the last question needs no reply.
    expect([cut.session(0), cut.session(1)].find((s) => s.system === undefined)?.turns).toHaveLength(2)
    expect(cut.describe()).toMatchObject({ turnsCut: 1 })
  })

  it('says what is wrong and where: JSONL lines, sources, think times', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llm-bench-sessions-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    const path = join(dir, 'bad.jsonl')
    writeFileSync(path, '{"turns": [{"user": "hi"}]}\n{"turns": [{"user": "hi", "max_tokens": 0}]}\n')
    await expect(sessions({ kind: 'sessions', source: { kind: 'jsonl', path } })).rejects.toThrow(
      /bad\.jsonl:2.*"turns"\[0\]\.max_tokens must be a whole number >= 1/s,
    )
    await expect(sessions({ kind: 'sessions', source: { kind: 'csv' } as never })).rejects.toThrow(
      /workload\.source.*'synthetic', 'sharegpt', 'jsonl'/s,
    )
    await expect(
      sessions({
        kind: 'sessions',
        source: { kind: 'synthetic', turns: { mean: 2 }, userTokens: { mean: 8 }, outputTokens: { mean: 8 } },
        thinkTimeMs: { mean: -1 },
      }),
    ).rejects.toThrow(/workload\.thinkTimeMs\.mean.*>= 0/s)
    await expect(
      sessions({
        kind: 'sessions',
        source: { kind: 'synthetic', turns: { mean: 0 }, userTokens: { mean: 8 }, outputTokens: { mean: 8 } },
      }),
    ).rejects.toThrow(/workload\.source\.turns\.mean.*whole number >= 1/s)
  })

  it('agentic trace: sub-agents hang on the parent turn that spawns them; roots in timestamp order; the same hash id gives the same words', async () => {
    const workload = await sessions({ kind: 'agentic-trace', path: fixture('agentic-trace.jsonl') })
    expect(workload.timestampsMs).toEqual([0, 40])
    const planner = workload.session(0)
    expect(planner.id).toBe('planner')
    expect(planner.turns.map((t) => [t.role, t.thinkMs, t.spawn.map((s) => s.id)])).toEqual([
      ['user', 0, []],
      ['tool', 30, ['search-a', 'search-b']],
      ['user', 5, []],
    ])
    const [a, b] = planner.turns[1]?.spawn ?? []
    expect(a?.turns).toHaveLength(2)
    // search-a and search-b open with the same hashed block (32 tokens of block 7).
    expect(a?.turns[0]?.content).toBe(b?.turns[0]?.content)
    const coder = workload.session(1)
    expect(coder.turns[1]?.content).toBe("Apply the verifier's notes and finish.")
    // Roots open with the run's salt; both start with block 1.
    expect(planner.turns[0]?.content.startsWith('salt ')).toBe(true)
    expect(planner.turns[0]?.content).toBe(coder.turns[0]?.content)
    expect(workload.describe()).toMatchObject({
      kind: 'agentic-trace',
      rootSessions: 2,
      subAgents: 3,
      maxFanOut: 2,
      requests: 9,
    })
  })
})
