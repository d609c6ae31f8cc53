import { describe, expect, test } from 'vitest'
import { cliCommands, runCli } from '../../src/cli.ts'
import { parseCliFlags } from '../../src/cli/cli-command.ts'
import { runOptionsFromFlags, splitServerArgs } from '../../src/cli/run-command.ts'
import { memoryIo } from '../helpers/memory-io.ts'

const run = cliCommands.run!
const optionsOf = (args: string[]) => runOptionsFromFlags(parseCliFlags('run', run, args))

describe('run: flags to benchmark options', () => {
  test("vLLM's names map onto the workload, load, warm-up and seed", () => {
    expect(
      optionsOf([
        '--num-prompts',
        '40',
        '--max-concurrency',
        '4',
        '--random-input-len',
        '64',
        '--random-output-len',
        '16',
        '--num-warmups',
        '2',
        '--seed',
        '7',
      ]),
    ).toEqual({
      workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 16 } },
      load: { requests: 40, concurrency: 4 },
      warmup: { requests: 2 },
      seed: 7,
    })
  })

  test('as vllm bench serve: no rate is every request at once; a rate with --max-concurrency is capped', () => {
    expect(optionsOf([]).load).toEqual({ requests: 100, rate: Infinity })
    expect(optionsOf(['--request-rate', 'inf']).load).toEqual({ requests: 100, rate: Infinity })
    expect(optionsOf(['--request-rate', '2.5', '--max-concurrency', '8']).load).toEqual({
      requests: 100,
      rate: 2.5,
      concurrency: 8,
    })
    expect(optionsOf([]).warmup).toBeUndefined()
  })

  test('embeddings and rerank ask for no output length', () => {
    expect(optionsOf(['--api', 'embeddings']).workload).toEqual({ kind: 'synthetic', inputTokens: { mean: 128 } })
    expect(optionsOf(['--api', 'rerank']).workload).not.toHaveProperty('outputTokens')
  })

  test('--server-args is split on white space, quotes keep a value whole', () => {
    expect(splitServerArgs(`-t 2  -np 4 --alias "my model" --chat-template-kwargs '{"a": 1}'`)).toEqual([
      '-t',
      '2',
      '-np',
      '4',
      '--alias',
      'my model',
      '--chat-template-kwargs',
      '{"a": 1}',
    ])
  })
})

describe('run: bad input is exit 2 with what to do, before anything is sent', () => {
  test.each([
    [[], /No server to measure: give --base-url .* or --llama-cpp <model\.gguf>.*vitest-llm-bench sim --port 8000/],
    [['--base-url', 'http://127.0.0.1:9', '--llama-cpp', 'm.gguf'], /--base-url and --llama-cpp both name the server/],
    [['--base-url', 'http://127.0.0.1:9', '--server-args', '-np 4'], /--server-args is for a launched server/],
    [['--base-url', 'http://127.0.0.1:9', '--server-bin', '/x'], /--server-bin is for a launched server/],
    [['--base-url', 'ftp://127.0.0.1:9'], /target\.baseUrl.*unsupported scheme 'ftp:'.*Use http:\/\/ or https:\/\//],
    [['--base-url', 'http://127.0.0.1:9', '--request-rate', '0'], /--request-rate: expected requests per second/],
    [['--base-url', 'http://127.0.0.1:9', '--max-concurrency', '0'], /--max-concurrency: must be at least 1/],
    [['--base-url', 'http://127.0.0.1:9', '--api', 'grpc'], /--api: expected one of chat, completions/],
    // The flags are vLLM's (`--max-concurrency`, `--request-rate`): other spellings are refused, not guessed.
    [['--base-url', 'http://127.0.0.1:9', '--concurrency', '4'], /Unknown flag --concurrency for 'run'/],
  ])('%j', async (args, message) => {
    const io = memoryIo()
    expect(await runCli(['run', ...args], io)).toBe(2)
    const text = io.errors.join('\n')
    expect(text).toMatch(message)
    expect(text).toContain('Usage: vitest-llm-bench run [flags]')
    expect(io.output).toEqual([])
  })
})
