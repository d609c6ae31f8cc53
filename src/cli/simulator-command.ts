import type { CliCommand, CliFlagValues } from './cli-command.ts'
import { OptionsError } from '../core/contract/errors.ts'
import { SIMULATOR_DEFAULTS } from '../sim/options.ts'
import type { SimulatorOptions } from '../sim/options.ts'
import { startSimulator } from '../sim/server.ts'

const d = SIMULATOR_DEFAULTS

function numberFlag(flags: CliFlagValues, name: string): number | undefined {
  const v = flags[name]
  return typeof v === 'number' ? v : undefined
}

function stringFlag(flags: CliFlagValues, name: string): string | undefined {
  const v = flags[name]
  return typeof v === 'string' ? v : undefined
}

/** Maps the `sim` command's flags to simulator options. */
export function simulatorOptionsFromFlags(flags: CliFlagValues): SimulatorOptions {
  const buffer = stringFlag(flags, 'buffer-mode')
  const apiKey = stringFlag(flags, 'api-key')
  return {
    port: numberFlag(flags, 'port'),
    host: stringFlag(flags, 'host'),
    model: stringFlag(flags, 'model'),
    seed: numberFlag(flags, 'seed'),
    speedFactor: numberFlag(flags, 'speed-factor'),
    slowdownPerHour: numberFlag(flags, 'slowdown-per-hour'),
    maxRunningSequences: numberFlag(flags, 'max-running-sequences'),
    prefillBaseMs: numberFlag(flags, 'prefill-base-ms'),
    prefillMsPerToken: numberFlag(flags, 'prefill-ms-per-token'),
    decodeBaseMs: numberFlag(flags, 'decode-base-ms'),
    decodeMsPerSequence: numberFlag(flags, 'decode-ms-per-sequence'),
    defaultMaxTokens: numberFlag(flags, 'default-max-tokens'),
    maxModelLen: numberFlag(flags, 'max-model-len'),
    tokensPerChunk: numberFlag(flags, 'tokens-per-chunk'),
    reasoningTokens: numberFlag(flags, 'reasoning-tokens'),
    prefixCaching: flags['prefix-caching'] === true,
    blockTokens: numberFlag(flags, 'block-tokens'),
    kvCacheTokens: numberFlag(flags, 'kv-cache-tokens'),
    faults: {
      httpErrorRate: numberFlag(flags, 'http-error-rate'),
      httpErrorStatus: numberFlag(flags, 'http-error-status') === 500 ? 500 : 429,
      dropConnectionRate: numberFlag(flags, 'drop-connection-rate'),
      errorEventRate: numberFlag(flags, 'error-event-rate'),
      stallRate: numberFlag(flags, 'stall-rate'),
      stallMs: numberFlag(flags, 'stall-ms'),
    },
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(buffer === 'json' || buffer === 'burst' ? { bufferMode: buffer } : {}),
  }
}

/** `vitest-llm-bench sim`: runs the simulator until SIGINT or SIGTERM. */
export const simulatorCommand: CliCommand = {
  summary:
    'Run the built-in OpenAI-compatible simulator (continuous batching, faults, prefix caching, /metrics) until Ctrl+C',
  exits: '0 stopped by Ctrl+C or SIGTERM; 1 it could not start (the port in use); 2 a usage error or a bad option',
  flags: {
    port: { type: 'integer', description: 'TCP port, 0 for a free one', default: 8000, min: 0, max: 65535 },
    host: { type: 'string', description: 'Interface to listen on', default: d.host },
    model: { type: 'string', description: 'Model id served', default: d.model },
    seed: { type: 'integer', description: 'Seed of output lengths, text and faults', default: d.seed },
    'speed-factor': {
      aliases: ['speed'],
      type: 'number',
      description: 'Multiplies every modeled delay: 2 = twice as slow, 0.5 = twice as fast, 0 = instant',
      default: d.speedFactor,
      min: 0,
    },
    'slowdown-per-hour': {
      type: 'number',
      description: 'A slow leak for soak tests: every modeled delay grows by this share per hour (0.05 = 5 %/h)',
      default: d.slowdownPerHour,
      min: 0,
    },
    'max-running-sequences': {
      aliases: ['max-seqs'],
      type: 'integer',
      description: 'Most sequences decoded together (vLLM --max-num-seqs)',
      default: d.maxRunningSequences,
      min: 1,
    },
    'prefill-base-ms': {
      aliases: ['prefill-ms'],
      type: 'number',
      description: 'Prefill cost per request, ms',
      default: d.prefillBaseMs,
      min: 0,
    },
    'prefill-ms-per-token': {
      type: 'number',
      description: 'Prefill cost per prompt token, ms',
      default: d.prefillMsPerToken,
      min: 0,
    },
    'decode-base-ms': {
      aliases: ['decode-ms'],
      type: 'number',
      description: 'Decode step cost, ms',
      default: d.decodeBaseMs,
      min: 0,
    },
    'decode-ms-per-sequence': {
      aliases: ['decode-ms-per-seq'],
      type: 'number',
      description: 'Decode step cost per running sequence, ms',
      default: d.decodeMsPerSequence,
      min: 0,
    },
    'default-max-tokens': {
      aliases: ['max-tokens'],
      type: 'integer',
      description: 'max_tokens when a request sends none',
      default: d.defaultMaxTokens,
      min: 1,
    },
    'max-model-len': { type: 'integer', description: 'Context window, tokens', default: d.maxModelLen, min: 1 },
    'tokens-per-chunk': {
      type: 'integer',
      description: 'Tokens per streamed chunk (speculative decoding)',
      default: d.tokensPerChunk,
      min: 1,
    },
    'reasoning-tokens': {
      type: 'integer',
      description: 'Reasoning tokens streamed as delta.reasoning_content before the answer (chat)',
      default: d.reasoningTokens,
      min: 0,
    },
    'prefix-caching': {
      type: 'boolean',
      description: 'Model automatic prefix caching: cached full blocks of a prompt cost no prefill',
    },
    'block-tokens': {
      type: 'integer',
      description: 'KV-cache block size, tokens (vLLM --block-size)',
      default: d.blockTokens,
      min: 1,
    },
    'kv-cache-tokens': {
      type: 'integer',
      description: 'KV-cache capacity, tokens (bounds the prefix cache; 100 % of vllm:kv_cache_usage_perc)',
      default: d.kvCacheTokens,
      min: 1,
    },
    'api-key': { type: 'string', description: 'Require this bearer token on /v1/*' },
    'buffer-mode': {
      aliases: ['buffer'],
      type: 'string',
      description: 'Answer without streaming: json (one JSON body) or burst (SSE all at once)',
      choices: ['json', 'burst'],
    },
    'http-error-rate': {
      type: 'number',
      description: 'Share of requests answered with an HTTP error',
      default: 0,
      min: 0,
      max: 1,
    },
    'http-error-status': {
      type: 'integer',
      description: 'Status of injected HTTP errors',
      default: d.faults.httpErrorStatus,
      choices: ['429', '500'],
    },
    'drop-connection-rate': {
      aliases: ['drop-rate'],
      type: 'number',
      description: 'Share of requests whose connection drops mid-stream',
      default: 0,
      min: 0,
      max: 1,
    },
    'error-event-rate': {
      type: 'number',
      description: 'Share of requests that get an error event mid-stream',
      default: 0,
      min: 0,
      max: 1,
    },
    'stall-rate': {
      type: 'number',
      description: 'Share of requests that stall mid-stream',
      default: 0,
      min: 0,
      max: 1,
    },
    'stall-ms': { type: 'number', description: 'Stall length, ms', default: d.faults.stallMs, min: 0 },
  },
  async run(flags, io) {
    const options = simulatorOptionsFromFlags(flags)
    let simulator
    try {
      simulator = await startSimulator(options)
    } catch (error) {
      if (error instanceof OptionsError) {
        io.err(`vitest-llm-bench sim: ${error.message}`)
        return 2
      }
      const code = (error as { code?: unknown }).code
      if (code === 'EADDRINUSE')
        io.err(
          `vitest-llm-bench sim: port ${String(options.port)} on ${String(options.host)} is in use. Pick another with --port, or --port 0 for a free one.`,
        )
      else io.err(`vitest-llm-bench sim: cannot start: ${(error as Error).message}`)
      return 1
    }
    io.out(
      `Simulator listening on ${simulator.url} (model ${String(flags.model)}, max ${String(flags['max-running-sequences'])} running sequences, speed ${String(flags['speed-factor'])})`,
    )
    io.out(
      `OpenAI base URL: ${simulator.url}/v1, Prometheus metrics: ${simulator.url}/metrics${options.prefixCaching ? ' (prefix caching on)' : ''}. Stop with Ctrl+C.`,
    )
    const signal = await io.stopRequested()
    await simulator.close()
    io.out(`Simulator stopped (${signal}).`)
    return 0
  },
}
