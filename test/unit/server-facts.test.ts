import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, test } from 'vitest'
import { ServerUnavailableError } from '../../src/core/contract/errors.ts'
import { getServerFacts, resetPrefixCache } from '../../src/core/server/server-facts.ts'

type Route = (
  req: http.IncomingMessage,
) => { status?: number; body?: unknown; headers?: Record<string, string> } | undefined

const servers: http.Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))))
})

/** An in-process server answering the routes given, 404 elsewhere. */
async function serve(routes: Record<string, Route>): Promise<string> {
  const server = http.createServer((req, res) => {
    const answer = routes[`${req.method} ${req.url}`]?.(req)
    res.writeHead(answer?.status ?? (answer ? 200 : 404), { 'content-type': 'application/json', ...answer?.headers })
    res.end(JSON.stringify(answer?.body ?? { detail: 'Not Found' }))
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('getServerFacts', () => {
  test('vLLM: /version, owned_by and max_model_len; the API key is sent to /v1', async () => {
    const baseUrl = await serve({
      'GET /version': () => ({ body: { version: '0.11.2' }, headers: { server: 'uvicorn' } }),
      'GET /v1/models': (req) =>
        req.headers.authorization === 'Bearer sk-1'
          ? {
              body: {
                object: 'list',
                data: [
                  { id: 'meta-llama/Llama-3.1-8B-Instruct', owned_by: 'vllm', max_model_len: 131072 },
                  { id: 'lora-a', owned_by: 'vllm', max_model_len: 131072 },
                ],
              },
            }
          : { status: 401, body: { error: 'Unauthorized' } },
    })
    expect(await getServerFacts(`${baseUrl}/v1`, { apiKey: 'sk-1' })).toEqual({
      name: 'vllm',
      version: '0.11.2',
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      maxContextTokens: 131072,
    })
  })

  test('llama.cpp: /props build_info, model_path and n_ctx', async () => {
    const baseUrl = await serve({
      'GET /props': () => ({
        body: {
          default_generation_settings: { n_ctx: 8192 },
          total_slots: 1,
          model_path: '/models/qwen2.5-0.5b-instruct-q4_k_m.gguf',
          build_info: 'b4567-abc1234',
        },
        headers: { server: 'llama.cpp' },
      }),
      'GET /v1/models': () => ({
        body: { object: 'list', data: [{ id: 'qwen2.5-0.5b-instruct-q4_k_m.gguf', owned_by: 'llamacpp' }] },
      }),
    })
    expect(await getServerFacts(baseUrl)).toEqual({
      name: 'llama.cpp',
      version: 'b4567-abc1234',
      model: 'qwen2.5-0.5b-instruct-q4_k_m.gguf',
      maxContextTokens: 8192,
    })
  })

  test('SGLang: /get_server_info gives the version', async () => {
    const baseUrl = await serve({
      'GET /get_server_info': () => ({ body: { version: '0.4.6', context_length: 32768 } }),
      'GET /v1/models': () => ({ body: { data: [{ id: 'Qwen/Qwen2.5-7B-Instruct', owned_by: 'sglang' }] } }),
    })
    expect(await getServerFacts(baseUrl, { model: 'Qwen/Qwen2.5-7B-Instruct' })).toEqual({
      name: 'sglang',
      version: '0.4.6',
      model: 'Qwen/Qwen2.5-7B-Instruct',
      maxContextTokens: 32768,
    })
  })

  test('another server: its `server` header names it', async () => {
    const baseUrl = await serve({
      'GET /v1/models': () => ({ body: { data: [{ id: 'm', owned_by: 'me' }] }, headers: { server: 'my-engine/2.1' } }),
    })
    expect(await getServerFacts(baseUrl)).toEqual({ name: 'my-engine', version: '2.1', model: 'm' })
  })

  test('an unreachable server gives no facts and no error', async () => {
    expect(await getServerFacts('http://127.0.0.1:9', { timeoutMs: 500 })).toEqual({})
  })
})

describe('resetPrefixCache', () => {
  test('vLLM POST /reset_prefix_cache: true', async () => {
    let calls = 0
    const baseUrl = await serve({ 'POST /reset_prefix_cache': () => (calls++, { body: {} }) })
    expect(await resetPrefixCache(baseUrl)).toBe(true)
    expect(calls).toBe(1)
  })

  test('SGLang POST /flush_cache when /reset_prefix_cache is absent', async () => {
    const baseUrl = await serve({ 'POST /flush_cache': () => ({ body: {} }) })
    expect(await resetPrefixCache(baseUrl)).toBe(true)
  })

  test('unsupported (404 everywhere): false, no throw', async () => {
    const baseUrl = await serve({})
    expect(await resetPrefixCache(baseUrl)).toBe(false)
  })

  test('an unreachable server: ServerUnavailableError', async () => {
    await expect(resetPrefixCache('http://127.0.0.1:9', { timeoutMs: 500 })).rejects.toBeInstanceOf(
      ServerUnavailableError,
    )
  })
})
