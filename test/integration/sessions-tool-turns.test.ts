/**
 * An agentic trace's `tool` turns answer the tool calls the previous reply made, by id, in each API's
 * shape: against the simulator (which answers a forced `tool_choice` with a call), through a proxy that
 * keeps every request body.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runBenchmark } from '../../src/core/run.ts'
import { startSimulator, type RunningSimulator } from '../../src/sim/index.ts'

type Body = Record<string, unknown> & { messages?: unknown[]; input?: unknown[] }

describe('agentic trace tool turns over chat, Responses and Messages', () => {
  let sim: RunningSimulator
  let proxyUrl: string
  let closeProxy: () => Promise<void>
  const bodies: Body[] = []
  let dir: string
  let trace: string

  beforeAll(async () => {
    sim = await startSimulator({ seed: 4, speedFactor: 0.1 })
    const server = createServer((req, res) => {
      const parts: Buffer[] = []
      req.on('data', (part: Buffer) => parts.push(part))
      req.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8')
        if (req.method === 'POST') bodies.push(JSON.parse(text) as Body)
        void fetch(`${sim.url}${req.url}`, {
          method: req.method,
          headers: { 'content-type': 'application/json' },
          ...(req.method === 'POST' ? { body: text } : {}),
        }).then(async (upstream) => {
          res.writeHead(upstream.status, Object.fromEntries(upstream.headers))
          for await (const chunk of upstream.body ?? []) res.write(chunk)
          res.end()
        })
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    proxyUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    closeProxy = () => new Promise((resolve) => server.close(() => resolve()))
    dir = mkdtempSync(join(tmpdir(), 'llm-bench-tool-turns-'))
    trace = join(dir, 'trace.jsonl')
    const lines = [
      { session_id: 'agent', timestamp: 0, input_length: 24, output_length: 6 },
      { session_id: 'agent', role: 'tool', input_length: 16, output_length: 6 },
      { session_id: 'agent', role: 'tool', input_length: 16, output_length: 6 },
    ]
    writeFileSync(trace, lines.map((line) => JSON.stringify(line)).join('\n'))
  })
  afterAll(async () => {
    await closeProxy()
    await sim.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const tool = { type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }

  async function runTrace(api: 'chat' | 'responses' | 'messages'): Promise<Body[]> {
    bodies.length = 0
    const result = await runBenchmark(
      {
        target: { baseUrl: proxyUrl, api },
        workload: { kind: 'agentic-trace', path: trace, tools: [tool], toolChoice: 'required' },
        load: {},
        warmup: { requests: 0 },
        serverMetrics: false,
        recordRequests: true,
      },
      { skipGpu: true },
    )
    // Every turn was accepted, and made a call; none of the calls is left in the recorded results.
    expect(result.errors).toEqual([])
    expect(result.counts).toEqual({ total: 3, completed: 3, failed: 0 })
    expect(result.streaming.toolCallRequests).toBe(3)
    expect(result.requests?.some((r) => r.toolCalls !== undefined)).toBe(false)
    // The probe's first turn, then the session's three.
    expect(bodies).toHaveLength(4)
    return bodies.slice(1)
  }

  it('chat: the assistant message carries the call, the tool message answers its id', async () => {
    const [, second, third] = await runTrace('chat')
    const messages = second!.messages as Array<Record<string, unknown>>
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
    const call = (messages[1]!.tool_calls as Array<{ id: string; function: { name: string } }>)[0]!
    expect(call.id).toMatch(/^call_/)
    expect(call.function.name).toBe('lookup')
    expect(messages[1]!.content).toBeNull()
    expect(messages[2]).toMatchObject({ role: 'tool', tool_call_id: call.id })
    // The third turn answers the second reply's call, a different one.
    const later = third!.messages as Array<Record<string, unknown>>
    expect(later.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool'])
    const secondCall = (later[3]!.tool_calls as Array<{ id: string }>)[0]!
    expect(secondCall.id).not.toBe(call.id)
    expect(later[4]).toMatchObject({ tool_call_id: secondCall.id })
  })

  it('Responses: a function_call item, then a function_call_output with its call_id', async () => {
    const [, second] = await runTrace('responses')
    const input = second!.input as Array<Record<string, unknown>>
    const call = input.find((item) => item.type === 'function_call')
    const output = input.find((item) => item.type === 'function_call_output')
    expect(call).toMatchObject({ name: 'lookup', call_id: expect.stringMatching(/^call_/) })
    expect(output).toMatchObject({ call_id: call!.call_id })
    expect(input.indexOf(output!)).toBe(input.length - 1)
  })

  it('Messages: a tool_use block, then a user message whose tool_result names its id', async () => {
    const [, second] = await runTrace('messages')
    const messages = second!.messages as Array<{ role: string; content: unknown }>
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    const use = (messages[1]!.content as Array<Record<string, unknown>>).find((block) => block.type === 'tool_use')
    expect(use).toMatchObject({ name: 'lookup', id: expect.stringMatching(/^call_/) })
    expect(messages[2]!.content).toEqual([{ type: 'tool_result', tool_use_id: use!.id, content: expect.any(String) }])
  })
})
