// Tool calls on a real server: llama-server with --jinja serving the generated tool-call model
// (scripts/llama/tool-model.ts), through a recording proxy (test/helpers/sse-tap.ts) in this process,
// so that each bench's records can be checked against the streams as the server sent them. Each
// bench.llm is followed by a test that reads its result (Vitest 5 runs tests in bench files) and
// prints a summary line `[llama tools] <name> <json>`. Run by test/e2e/llama-server.test.ts with small
// counts; the measurement in docs/llama-cpp.md with LLAMA_TOOLS_REQUESTS=50 LLAMA_TOOLS_SESSIONS=5:
//
//   npx vitest bench --run --config test/e2e/llama-tools.vitest.config.ts
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test, type TestContext } from 'vitest'
import { findLlamaArtifacts } from '../../scripts/llama/llama-cache.ts'
import type { ApiKind } from '../../src/core/contract/api-kinds.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import type { ChatTool } from '../../src/core/contract/workload-options.ts'
import { llamaCpp, startServer, type RunningServer } from '../../src/core/server/index.ts'
import { bench } from '../../src/vitest/index.ts'
import { LLAMA_E2E_SERVER_ARGS } from '../helpers/llama-server-args.ts'
import { startSseTap, type SseTap } from '../helpers/sse-tap.ts'
import { summariseToolReplies, summariseToolTurns } from '../helpers/tool-call-replies.ts'

const REQUESTS = Number(process.env.LLAMA_TOOLS_REQUESTS ?? 8)
const SESSIONS = Number(process.env.LLAMA_TOOLS_SESSIONS ?? 2)
const APIS = ['chat', 'responses', 'messages'] as const satisfies readonly ApiKind[]

/** Two functions, so that a named `toolChoice` can be seen to hold or not. */
const TOOLS: ChatTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather of a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string', description: 'City name' } },
        required: ['city'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'search',
      description: 'Search the web',
      parameters: {
        type: 'object',
        properties: { query: { type: 'string', description: 'What to look for' } },
        required: ['query'],
      },
    },
  },
]

const artifacts = findLlamaArtifacts()
let server: RunningServer | undefined
let tap: SseTap | undefined
if (artifacts.found) {
  server = await startServer(
    llamaCpp({
      bin: artifacts.manifest.serverPath,
      modelPath: artifacts.manifest.toolModelPath,
      args: [...LLAMA_E2E_SERVER_ARGS, '--jinja'],
      ...(process.env.LLAMA_E2E_LOG_DIR ? { logDir: process.env.LLAMA_E2E_LOG_DIR } : {}),
      startTimeoutMs: 60_000,
    }),
    { print: () => {} },
  )
  tap = await startSseTap(server.baseUrl)
} else {
  console.warn(`[llama tools] skipped: ${artifacts.reason}`)
}

// An agentic trace: each session a user turn, then two tool turns answering the calls before them.
const traceDir = mkdtempSync(join(tmpdir(), 'llama-tools-trace-'))
const tracePath = join(traceDir, 'trace.jsonl')
writeFileSync(
  tracePath,
  Array.from({ length: SESSIONS }, (_, s) => [
    { session_id: `agent-${s}`, timestamp: s * 10, input_length: 32, output_length: 48 },
    { session_id: `agent-${s}`, role: 'tool', input_length: 24, output_length: 48 },
    { session_id: `agent-${s}`, role: 'tool', input_length: 24, output_length: 48 },
  ])
    .flat()
    .map((line) => JSON.stringify(line))
    .join('\n'),
)

afterAll(async () => {
  await tap?.close()
  await server?.stop()
  rmSync(traceDir, { recursive: true, force: true })
})

const common = {
  warmup: { requests: 1 },
  seed: 7,
  recordRequests: true,
  baseline: false as const,
  slo: { errors: { maxRate: 0 } },
  timeoutMs: 300_000,
}

/** The result of the bench named `name` in the same suite (it ran just before). */
function resultOf(ctx: TestContext, name: string): BenchmarkResult {
  const result = ctx.task.suite?.tasks.find((task) => task.name === name)?.meta.llmBench?.result
  if (result === undefined) throw new Error(`bench "${name}" left no result`)
  return result
}

function print(name: string, value: unknown): void {
  console.log(`[llama tools] ${name} ${JSON.stringify(value)}`)
}

describe.runIf(artifacts.found)('llama.cpp tool calls', () => {
  for (const api of APIS) {
    const name = `${api}, toolChoice required`
    bench.llm(name, {
      ...common,
      target: { baseUrl: tap?.url ?? 'http://127.0.0.1:9', api },
      workload: {
        kind: 'synthetic',
        inputTokens: { mean: 32 },
        outputTokens: { mean: 128 },
        tools: TOOLS,
        toolChoice: 'required',
      },
      load: { concurrency: 2, requests: REQUESTS },
    })
    test(`${name}: every reply a tool call, its arguments JSON, TTFT at the first call delta`, (ctx) => {
      const result = resultOf(ctx, name)
      const summary = summariseToolReplies(api, result.requests ?? [], tap!.exchanges)
      tap!.exchanges.length = 0
      print(name, { toolCallRequests: result.streaming.toolCallRequests, ...summary })
      expect(result.counts).toEqual({ total: REQUESTS, completed: REQUESTS, failed: 0 })
      expect(result.streaming.toolCallRequests).toBe(REQUESTS)
      expect(summary.paired).toBe(REQUESTS)
      expect(summary.textBeforeCall).toBe(0)
      expect(summary.calls).toBeGreaterThanOrEqual(REQUESTS)
      expect(summary.jsonArguments).toBe(summary.calls)
      expect(summary.finishReasons).toEqual({ tool_calls: REQUESTS })
      // The client's TTFT ends at the event that carried the first piece of the call, read after the
      // tap read it: the lag is the proxy's hop (a late event loop would stretch it, never make it < 0).
      expect(summary.ttftLagMs.min).toBeGreaterThanOrEqual(0)
      expect(summary.ttftLagMs.p50).toBeLessThan(20)
    })
  }

  const auto = 'chat, toolChoice auto'
  bench.llm(auto, {
    ...common,
    target: { baseUrl: tap?.url ?? 'http://127.0.0.1:9', api: 'chat' },
    workload: {
      kind: 'synthetic',
      inputTokens: { mean: 32 },
      outputTokens: { mean: 128 },
      tools: TOOLS,
      toolChoice: 'auto',
      ignoreEos: false,
    },
    load: { concurrency: 2, requests: REQUESTS },
  })
  test(`${auto}: what the model does when it may answer in text`, (ctx) => {
    const result = resultOf(ctx, auto)
    const summary = summariseToolReplies('chat', result.requests ?? [], tap!.exchanges)
    tap!.exchanges.length = 0
    print(auto, { toolCallRequests: result.streaming.toolCallRequests, ...summary })
    // Its cue opens every reply with `<tool_call>`, llama.cpp's lazy grammar trigger in auto.
    expect(result.streaming.toolCallRequests).toBe(REQUESTS)
    expect(summary.jsonArguments).toBe(summary.calls)
  })

  for (const api of APIS) {
    const name = `${api}, agentic trace with tool turns`
    bench.llm(name, {
      ...common,
      target: { baseUrl: tap?.url ?? 'http://127.0.0.1:9', api },
      workload: { kind: 'agentic-trace', path: tracePath, tools: TOOLS, toolChoice: 'required' },
      load: { concurrency: 2, sessions: SESSIONS },
    })
    test(`${name}: every turn accepted, each tool turn answers the call before it by id`, (ctx) => {
      const result = resultOf(ctx, name)
      const turns = summariseToolTurns(api, tap!.exchanges)
      tap!.exchanges.length = 0
      const sessions = result.sessions
      print(name, {
        counts: result.counts,
        sessions: { started: sessions?.started, completed: sessions?.completed, failed: sessions?.failed },
        toolCallRequests: result.streaming.toolCallRequests,
        outputTokensP50: result.metrics.outputTokens.p50,
        ttftP50ByTurn: result.sessions?.byTurn.map((t) => t.ttftMs.p50),
        ...turns,
      })
      expect(result.errors).toEqual([])
      expect(result.counts).toEqual({ total: 3 * SESSIONS, completed: 3 * SESSIONS, failed: 0 })
      expect(result.sessions).toMatchObject({ started: SESSIONS, completed: SESSIONS, failed: 0 })
      expect(result.streaming.toolCallRequests).toBe(3 * SESSIONS)
      expect(turns.results).toBe(2 * SESSIONS)
      expect(turns.answerEarlierCall).toBe(turns.results)
      expect(turns.answerStreamedCall).toBe(turns.results)
    })
  }
})
