// The embeddings and rerank APIs on the client side: the bodies sent, the replies read (llama-server's
// own, captured from the build this project makes; vLLM's and TEI's rerank shapes), the texts grouped
// into batches, and what a run of them measures and refuses.
import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { buildRequestBody } from '../../src/core/client/index.ts'
import type { ResolvedTarget } from '../../src/core/client/index.ts'
import { readInputsReply } from '../../src/core/client/inputs-reply.ts'
import { createWorkload } from '../../src/core/workload/index.ts'
import { MetricsAccumulator } from '../../src/core/metrics/index.ts'
import { defaultRegressionPolicy } from '../../src/core/verdict/index.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'
import type { WorkloadOptions } from '../../src/core/contract/workload-options.ts'
import { mergeTrials } from '../../src/core/trials/index.ts'
import { renderConsoleEntry } from '../../reporters/console-table.ts'
import { renderMarkdown } from '../../reporters/markdown.ts'
import { renderHtml } from '../../reporters/html/html-report.ts'
import { makeResult } from '../helpers/baseline-fixtures.ts'
import { findSaturation } from '../../src/core/sweep/index.ts'
import { saturationFor } from '../../src/core/sweep/saturation.ts'

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/inputs/${name}`, import.meta.url), 'utf8'))

const target = (api: 'embeddings' | 'rerank'): ResolvedTarget => ({
  baseUrl: 'http://127.0.0.1:8000',
  model: 'm',
  api,
  headers: {},
  requestTimeoutMs: 1000,
  stallTimeoutMs: 120_000,
})

describe('request bodies', () => {
  test('embeddings: input always a list, floats asked for, nothing streamed or sized', () => {
    expect(buildRequestBody(target('embeddings'), { inputs: ['a b', 'c'], maxTokens: 9, ignoreEos: true })).toEqual({
      model: 'm',
      input: ['a b', 'c'],
      encoding_format: 'float',
    })
    // A request another API's workload built: its prompt is the one input.
    expect(buildRequestBody(target('embeddings'), { prompt: 'p' })).toEqual({
      model: 'm',
      input: ['p'],
      encoding_format: 'float',
    })
  })

  test('rerank: query and documents, every document scored (no top_n); extraBody wins', () => {
    expect(buildRequestBody(target('rerank'), { query: 'q', inputs: ['d1', 'd2'] })).toEqual({
      model: 'm',
      query: 'q',
      documents: ['d1', 'd2'],
    })
    expect(
      buildRequestBody(target('rerank'), { query: 'q', inputs: ['d'], extraBody: { top_n: 1, documents: ['x'] } }),
    ).toEqual({ model: 'm', query: 'q', documents: ['x'], top_n: 1 })
  })
})

describe('readInputsReply', () => {
  test("llama-server's embeddings reply (2 inputs, 64 dimensions): both answered, usage.prompt_tokens", () => {
    expect(readInputsReply('embeddings', fixture('llama-embeddings.json'), 2)).toEqual({ answered: 2, inputTokens: 7 })
  })

  test("llama-server's rerank reply, sorted by score: all 3 documents answered", () => {
    expect(readInputsReply('rerank', fixture('llama-rerank.json'), 3)).toEqual({ answered: 3, inputTokens: 15 })
  })

  test("vLLM's rerank reply reports only usage.total_tokens; TEI's is a bare list with `score` and no usage", () => {
    expect(readInputsReply('rerank', fixture('vllm-rerank.json'), 2)).toEqual({ answered: 2, inputTokens: 41 })
    expect(readInputsReply('rerank', fixture('tei-rerank.json'), 3)).toEqual({ answered: 3, inputTokens: undefined })
  })

  test('a reply that answers fewer texts than were sent, or answers without an embedding, is malformed', () => {
    expect(readInputsReply('embeddings', fixture('llama-embeddings.json'), 3)).toEqual({
      kind: 'malformed',
      message: 'the embeddings reply answered 2 of the 3 inputs sent',
    })
    expect(readInputsReply('rerank', fixture('vllm-rerank.json'), 5)).toMatchObject({
      message: 'the rerank reply answered 2 of the 5 documents sent',
    })
    expect(readInputsReply('embeddings', { data: [{ index: 0 }], usage: { prompt_tokens: 1 } }, 1)).toEqual({
      kind: 'malformed',
      message: "the embeddings reply's answer 0 has no embedding",
    })
    // The other API's reply: embeddings read as a rerank reply.
    expect(readInputsReply('rerank', fixture('llama-embeddings.json'), 2)).toEqual({
      kind: 'malformed',
      message: 'the rerank reply has no scores under `results`',
    })
  })
})

describe('texts grouped into requests (workload.batch)', () => {
  const prompts: WorkloadOptions = { kind: 'prompts', prompts: ['t0', 't1', 't2', 't3', 't4', 't5', 't6'] }

  test('embeddings: request i takes texts i*batch .. i*batch+batch-1, cycling as the workload does', async () => {
    const workload = await createWorkload({ ...prompts, batch: 3 }, { seed: 1, api: 'embeddings' })
    expect(workload.next(0).inputs).toEqual(['t0', 't1', 't2'])
    expect(workload.next(1).inputs).toEqual(['t3', 't4', 't5'])
    expect(workload.next(2).inputs).toEqual(['t6', 't0', 't1'])
    expect(workload.size).toBe(3)
    expect(workload.describe()).toMatchObject({ kind: 'prompts', batch: 3, requestedOutputTokensMean: null })
  })

  test('rerank: the first text of each group is the query, the next `batch` its documents', async () => {
    const workload = await createWorkload({ ...prompts, batch: 2 }, { seed: 1, api: 'rerank' })
    expect(workload.next(0)).toMatchObject({ query: 't0', inputs: ['t1', 't2'] })
    expect(workload.next(1)).toMatchObject({ query: 't3', inputs: ['t4', 't5'] })
  })

  test('synthetic: every text has its sampled length; the estimate counts the query beside each document', async () => {
    const synthetic: WorkloadOptions = { kind: 'synthetic', inputTokens: { mean: 40 }, batch: 4 }
    const embeddings = await createWorkload(synthetic, { seed: 1, api: 'embeddings', salt: '' })
    const request = embeddings.next(0)
    expect(request.inputs).toHaveLength(4)
    expect(new Set(request.inputs).size).toBe(4)
    expect(request.expectedInputTokens).toBe(4 * 40)
    expect(embeddings.describe()).toMatchObject({ requestedInputTokensMean: 160, batch: 4 })
    expect(embeddings.describe()).not.toHaveProperty('outputTokens')
    expect(embeddings.describe()).not.toHaveProperty('ignoreEos')
    const rerank = await createWorkload(synthetic, { seed: 1, api: 'rerank', salt: '' })
    expect(rerank.next(0).expectedInputTokens).toBe(4 * 40 + 4 * 40)
    expect(rerank.describe()).toMatchObject({ requestedInputTokensMean: 320 })
  })

  test('what these APIs cannot take is refused, naming the option and what to do', async () => {
    const refused = (options: WorkloadOptions, api: 'chat' | 'embeddings' | 'rerank') =>
      createWorkload(options, { seed: 1, api }).then(
        () => 'accepted',
        (error: Error) => error.message,
      )
    expect(await refused({ ...prompts, batch: 2 }, 'chat')).toBe(
      "Invalid option `workload.batch`: only the embeddings and rerank APIs take texts in batches; target.api is 'chat'. Leave it out, or set target.api to 'embeddings' or 'rerank'.",
    )
    expect(await refused({ ...prompts, batch: 0 }, 'embeddings')).toContain(
      'Invalid option `workload.batch`: must be a whole number from 1 to 4096, got 0',
    )
    expect(await refused({ kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 8 } }, 'rerank')).toBe(
      'Invalid option `workload.outputTokens`: the rerank API generates no reply: nothing to shape or to size. Leave it out.',
    )
    expect(await refused({ kind: 'trace', path: 'x.jsonl' }, 'embeddings')).toContain(
      "Invalid option `workload.kind`: 'trace' is not a source of texts for the embeddings API",
    )
  })
})

describe('what a run of them measures', () => {
  const record = (index: number, inputs: number, inputTokens: number, e2e: number): RequestRecord => ({
    index,
    plannedAt: undefined,
    sentAt: 1000 * index,
    headersAt: 1000 * index + e2e,
    firstTokenAt: undefined,
    endAt: 1000 * index + e2e,
    chunkTimes: [],
    outputTokens: 0,
    inputTokens,
    usageReported: true,
    streamed: false,
    readInOneBurst: false,
    ok: true,
    inputs,
  })

  test('E2E per request, texts and input tokens per second, no TTFT and no "did not stream" warning', () => {
    const accumulator = new MetricsAccumulator()
    accumulator.add(record(0, 4, 100, 20))
    accumulator.add(record(1, 4, 120, 40))
    const outcome = accumulator.finish({ durationMs: 2000, serverBuffers: undefined })
    expect(outcome.throughput).toEqual({
      requestsPerSec: 1,
      outputTokensPerSec: 0,
      totalTokensPerSec: 110,
      inputsPerSec: 4,
      inputTokensPerSec: 110,
    })
    expect(outcome.metrics.e2eMs.count).toBe(2)
    expect(outcome.metrics.ttftMs.count).toBe(0)
    expect(outcome.streaming).toMatchObject({ streamed: false, evidence: 'api', nonSseRequests: 0 })
    expect(outcome.streaming.note).toBe(
      '8 texts in 2 requests (4.0 per request), each answered in one JSON body: latency is end to end; there is no TTFT, TPOT or ITL',
    )
    expect(outcome.warnings).toEqual([])
  })

  test("a sweep's knee is read from tokens per second (all input), not from output tokens they never have", () => {
    const curve = [1, 2, 4, 8].map((value) => ({
      value,
      outputTokensPerSec: 0,
      requestsPerSec: value,
      totalTokensPerSec: Math.min(value, 4) * 1000,
    }))
    expect(saturationFor('embeddings', undefined)).toEqual({ metric: 'totalTokensPerSec' })
    expect(findSaturation(curve, saturationFor('rerank', undefined))?.value).toBe(4)
    // With output tokens/s (all 0) every point would be the knee's equal: the first one.
    expect(findSaturation(curve, saturationFor('chat', undefined))?.value).toBe(1)
    expect(saturationFor('embeddings', { metric: 'requestsPerSec', minGain: 0.2 })).toEqual({
      metric: 'requestsPerSec',
      minGain: 0.2,
    })
  })

  test('their default gates are E2E p50 and tokens per second; the generation APIs keep TTFT, TPOT and output tok/s', () => {
    expect(defaultRegressionPolicy({ api: 'embeddings' })).toEqual({ e2eMs: { p50: '+10%' }, totalTokensPerSec: '-5%' })
    expect(defaultRegressionPolicy({ api: 'rerank' })).toEqual(defaultRegressionPolicy({ api: 'embeddings' }))
    expect(defaultRegressionPolicy(undefined)).toEqual({
      ttftMs: { p50: '+10%' },
      tpotMs: { p50: '+10%' },
      outputTokensPerSec: '-5%',
    })
  })
})

describe('trials and reports of an embeddings bench', () => {
  const trial = (durationMs: number, inputsPerSec: number, inputTokensPerSec: number) =>
    makeResult({
      e2eMs: [20, 22, 25],
      counts: { completed: 3 },
      durationMs,
      throughput: {
        requestsPerSec: 3 / (durationMs / 1000),
        outputTokensPerSec: 0,
        totalTokensPerSec: inputTokensPerSec,
        inputsPerSec,
        inputTokensPerSec,
      },
      config: {
        target: { api: 'embeddings' },
        workload: { kind: 'synthetic', inputTokens: { mean: 64 }, batch: 4 },
        load: { concurrency: 2, requests: 3 },
      },
    })

  test('trials pool texts and input tokens per second over their summed duration', () => {
    // 1 s at 12 texts/s and 2 s at 6 texts/s: 24 texts in 3 s.
    const merged = mergeTrials([trial(1000, 12, 600), trial(2000, 6, 300)])
    expect(merged.throughput.inputsPerSec).toBeCloseTo(8, 9)
    expect(merged.throughput.inputTokensPerSec).toBeCloseTo(400, 9)
    expect(merged.throughput.totalTokensPerSec).toBeCloseTo(400, 9)
    // A chat trial has neither: the pooled result has neither.
    const chat = makeResult({ e2eMs: [1], counts: { completed: 1 } })
    expect(mergeTrials([trial(1000, 12, 600), chat]).throughput.inputsPerSec).toBeUndefined()
  })

  test('the console shows texts/s and input tokens/s, not output tokens; the config names the batch', () => {
    const result = trial(1000, 12, 600)
    result.metrics.inputTokens = { ...result.metrics.e2eMs, count: 3, mean: 256 }
    const text = renderConsoleEntry({ name: 'embeddings', file: 'x.bench.ts', state: 'passed', result })
    expect(text).toMatch(/^ {2}texts\/s +12 texts\/s$/m)
    expect(text).toMatch(/^ {2}input tokens\/s +600 tok\/s$/m)
    expect(text).not.toContain('output tokens')
    expect(text).toContain('config  embeddings · synthetic texts of 64 tokens, 4 per request · concurrency 2')
    expect(text).toContain('totals  768 input tokens in 1.0 s')
  })

  test('markdown and HTML read the bench by its input tokens/s, and the HTML shows texts/s', () => {
    const result = trial(1000, 12, 600)
    const entry = { name: 'embeddings', file: 'x.bench.ts', state: 'passed' as const, result }
    const markdown = renderMarkdown([entry])
    const row = markdown.split('\n').find((line) => line.includes('| embeddings |'))
    expect(row).toContain('| 600 input |')
    const html = renderHtml([entry])
    expect(html).toContain('input tokens/s')
    expect(html).toContain('texts/s')
    expect(html).toContain('600 input')
  })
})
