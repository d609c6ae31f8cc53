/** A misspelt option is refused at every level of every option object, with "did you mean". */
import { describe, expect, test } from 'vitest'
import { planBench } from '../../src/bench/plan-bench.ts'
import { validateBenchSweepOptions } from '../../src/bench/sweep-bench-options.ts'
import { command, llamaCpp, sglang, vllm } from '../../src/core/server/index.ts'
import { resolveBenchmark } from '../../src/core/plan/index.ts'

const workload = { kind: 'synthetic', inputTokens: { mean: 32 }, outputTokens: { mean: 8 } }
const load = { concurrency: 2, requests: 10 }
const target = { baseUrl: 'http://127.0.0.1:8000' }
const plan = (options: Record<string, unknown>) => () => resolveBenchmark({ target, workload, load, ...options })
const sweep = (options: Record<string, unknown>) => () =>
  validateBenchSweepOptions('s', { workload, load: { requests: 10 }, ...options })

describe('unknown keys', () => {
  test.each([
    [
      'workload',
      plan({ workload: { ...workload, ignoreEOS: false } }),
      /^Invalid option `workload\.ignoreEOS`: is not an option of a 'synthetic' workload\. Did you mean `workload\.ignoreEos`\?/,
    ],
    [
      'a length distribution',
      plan({ workload: { ...workload, inputTokens: { mean: 32, stdev: 4 } } }),
      /`workload\.inputTokens\.stdev`: is not an option of `workload\.inputTokens`\. Did you mean `workload\.inputTokens\.stddev`\?/,
    ],
    [
      'a session source',
      plan({
        workload: {
          kind: 'sessions',
          source: { kind: 'synthetic', turn: 3, userTokens: { mean: 8 }, outputTokens: { mean: 4 } },
        },
        load: { concurrency: 1, sessions: 2 },
      }),
      /`workload\.source\.turn`: is not an option of a 'synthetic' session source\. Did you mean `workload\.source\.turns`\?/,
    ],
    [
      'a think time',
      plan({
        workload: { kind: 'sessions', source: { kind: 'jsonl', path: 'a.jsonl' }, thinkTimeMs: { means: 5 } },
        load: { concurrency: 1, sessions: 2 },
      }),
      /`workload\.thinkTimeMs\.means`.*Did you mean `workload\.thinkTimeMs\.mean`\?/,
    ],
    [
      'load',
      plan({ load: { ...load, drainGrace: 5 } }),
      /`load\.drainGrace`: is not an option of `load`\. Did you mean `load\.drainGraceMs`\?/,
    ],
    [
      'the ramp',
      plan({ load: { rate: 5, requests: 10, rampUp: { from: 1, durationMs: 100, curv: 'linear' } } }),
      /`load\.rampUp\.curv`.*Did you mean `load\.rampUp\.curve`\?/,
    ],
    [
      'warm-up',
      plan({ warmup: { request: 4 } }),
      /`warmup\.request`: is not an option of `warmup`\. Did you mean `warmup\.requests`\?/,
    ],
    [
      'target',
      () => resolveBenchmark({ target: { ...target, apikey: 'k' }, workload, load }),
      /`target\.apikey`: is not an option of `target`\. Did you mean `target\.apiKey`\?/,
    ],
    [
      "bench.llm's target",
      () => planBench('b', { workload, load, target: { ap: 'completions' } }),
      /`target\.ap`: is not an option of `target`\. Did you mean `target\.api`\?/,
    ],
    [
      'bench.llm',
      () => planBench('b', { workload, laod: load }),
      /^Invalid option `laod`: is not an option of bench\.llm\('b'\)\. Did you mean `load`\?/,
    ],
    [
      'llamaCpp()',
      () => llamaCpp({ modelpath: 'm.gguf' } as never),
      /`modelpath`: is not an option of llamaCpp\(\)\. Did you mean `modelPath`\?/,
    ],
    [
      'vllm()',
      () => vllm({ model: 'm', arg: ['-x'] } as never),
      /`arg`: is not an option of vllm\(\)\. Did you mean `args`\?/,
    ],
    [
      'sglang()',
      () => sglang({ model: 'm', startTimeout: 5 } as never),
      /`startTimeout`: is not an option of sglang\(\)\. Did you mean `startTimeoutMs`\?/,
    ],
    [
      'command()',
      () => command(['srv', '--port', '{port}'], { readyURL: 'http://127.0.0.1:1/health' } as never),
      /`readyURL`: is not an option of command\(\)\. Did you mean `readyUrl`\?/,
    ],
    [
      'a capacity search',
      sweep({ capacity: { limits: { ttftMs: 500 }, rate: { min: 1, max: 64 }, precison: 0.05 } }),
      /`capacity\.precison`: is not an option of `capacity`\. Did you mean `capacity\.precision`\?/,
    ],
    [
      "a capacity search's rate",
      sweep({ capacity: { limits: { ttftMs: 500 }, rate: { min: 1, max: 64, strat: 2 } } }),
      /`capacity\.rate\.strat`.*Did you mean `capacity\.rate\.start`\?/,
    ],
    [
      "a sweep's saturation",
      sweep({ over: { concurrency: [1, 2] }, saturation: { minGainn: 0.1 } }),
      /`saturation\.minGainn`.*Did you mean `saturation\.minGain`\?/,
    ],
    [
      "a sweep's knee expectation",
      sweep({ over: { concurrency: [1, 2] }, expect: { knee: { notEarlierThanBaselin: true } } }),
      /`expect\.knee\.notEarlierThanBaselin`.*Did you mean `expect\.knee\.notEarlierThanBaseline`\?/,
    ],
    [
      "a sweep's throughput expectation",
      sweep({ over: { concurrency: [1, 2] }, expect: { throughput: [{ at: 2, mn: 5 }] } }),
      /`expect\.throughput\[0\]\.mn`.*Did you mean `expect\.throughput\[0\]\.min`\?/,
    ],
  ])('%s', (_, run, message) => {
    expect(run).toThrow(message)
  })

  test('every known key of each kind is accepted', () => {
    expect(() =>
      resolveBenchmark({
        target: {
          ...target,
          model: 'm',
          api: 'chat',
          apiKey: 'k',
          headers: {},
          requestTimeoutMs: 1000,
          continuousUsageStats: false,
        },
        workload: {
          ...workload,
          ignoreEos: true,
          sharedPrefixTokens: 4,
          inputTokens: { mean: 32, stddev: 1, min: 1, max: 64 },
        },
        load: { ...load, drainGraceMs: 1 },
        warmup: { requests: 1, durationMs: 10 },
      }),
    ).not.toThrow()
    expect(() =>
      resolveBenchmark({ target, workload: { kind: 'prompts', prompts: ['a'], maxTokens: 4, ignoreEos: false }, load }),
    ).not.toThrow()
    expect(() =>
      llamaCpp({
        modelPath: 'm',
        args: [],
        env: {},
        port: 1,
        bin: 'b',
        apiKey: 'k',
        cwd: '.',
        startTimeoutMs: 1,
        stopGraceMs: 1,
        logDir: 'l',
      }),
    ).not.toThrow()
  })
})
