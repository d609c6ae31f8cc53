import { describe, expect, test } from 'vitest'
import { command, connect, llamaCpp, sglang, vllm } from '../../src/core/server/presets.ts'
import { isSecretName } from '../../src/core/platform/redact.ts'
import { redactArgs, redactEnv, redactText, secretValues } from '../../src/core/server/redact.ts'
import { serverKey } from '../../src/core/server/server-key.ts'

describe('redaction', () => {
  test('secret names (the shared rule): keys, tokens, secrets, passwords; not token counts or tokenizers', () => {
    for (const name of [
      '--api-key',
      'HF_TOKEN',
      'OPENAI_API_KEY',
      'AWS_SECRET_ACCESS_KEY',
      'apiKey',
      'DB_PASSWORD',
      '--hf-token',
      'HUGGING_FACE_HUB_TOKEN',
      'MYAPIKEY',
      'authorization',
    ]) {
      expect(isSecretName(name), name).toBe(true)
    }
    for (const name of [
      '--max-num-batched-tokens',
      '--tokenizer',
      'TOKENIZERS_PARALLELISM',
      '--max-model-len',
      'CUDA_VISIBLE_DEVICES',
      'PWD',
      '--kv-cache-dtype',
    ]) {
      expect(isSecretName(name), name).toBe(false)
    }
  })

  test('--api-key value and --api-key=value are redacted; other arguments are kept', () => {
    expect(
      redactArgs([
        'serve',
        'm',
        '--api-key',
        'sk-xxx',
        '--max-num-batched-tokens',
        '8192',
        '--hf-token=hf_abc',
        '--enforce-eager',
      ]),
    ).toEqual([
      'serve',
      'm',
      '--api-key',
      '***',
      '--max-num-batched-tokens',
      '8192',
      '--hf-token=***',
      '--enforce-eager',
    ])
    // A secret-named switch followed by another flag has no value to hide.
    expect(redactArgs(['--use-auth-token', '--port', '1'])).toEqual(['--use-auth-token', '--port', '1'])
    expect(redactArgs(['--download-url', 'https://user:pa55@example.com/x'])).toEqual([
      '--download-url',
      'https://***@example.com/x',
    ])
  })

  test('env values of secret-named variables are redacted', () => {
    expect(
      redactEnv({
        HF_TOKEN: 'hf_abc',
        CUDA_VISIBLE_DEVICES: '0,1',
        VLLM_API_KEY: 'k',
        TOKENIZERS_PARALLELISM: 'false',
      }),
    ).toEqual({
      HF_TOKEN: '***',
      CUDA_VISIBLE_DEVICES: '0,1',
      VLLM_API_KEY: '***',
      TOKENIZERS_PARALLELISM: 'false',
    })
  })

  test('secret values are found in args and env and scrubbed from free text', () => {
    const secrets = secretValues(['--api-key', 'sk-xxx-1', '--hf-token=hf_abcdef', '--port', '8000'], {
      HF_TOKEN: 'hf_env_token',
      OTHER: 'visible',
    })
    expect(secrets.sort()).toEqual(['hf_abcdef', 'hf_env_token', 'sk-xxx-1'])
    expect(redactText("non-default args: {'api_key': 'sk-xxx-1'} token hf_env_token, port 8000", secrets)).toBe(
      "non-default args: {'api_key': '***'} token ***, port 8000",
    )
  })
})

describe('presets', () => {
  test('vllm: vllm serve <model> --host 127.0.0.1 --port {port} ...args', () => {
    expect(
      vllm({
        model: 'meta-llama/Llama-3.1-8B-Instruct',
        args: ['--max-model-len', '8192'],
        env: { CUDA_VISIBLE_DEVICES: '0' },
      }),
    ).toEqual({
      kind: 'launch',
      name: 'vllm',
      command: 'vllm',
      args: [
        'serve',
        'meta-llama/Llama-3.1-8B-Instruct',
        '--host',
        '127.0.0.1',
        '--port',
        '{port}',
        '--max-model-len',
        '8192',
      ],
      env: { CUDA_VISIBLE_DEVICES: '0' },
    })
  })

  test('sglang and llama.cpp; the binary is overridable', () => {
    expect(sglang({ model: 'Qwen/Qwen2.5-7B', port: 30000 })).toMatchObject({
      command: 'python3',
      args: [
        '-m',
        'sglang.launch_server',
        '--model-path',
        'Qwen/Qwen2.5-7B',
        '--host',
        '127.0.0.1',
        '--port',
        '{port}',
      ],
      port: 30000,
    })
    expect(
      llamaCpp({ modelPath: '/models/q4.gguf', bin: '/opt/llama/llama-server', args: ['-ngl', '99'] }),
    ).toMatchObject({
      name: 'llama.cpp',
      command: '/opt/llama/llama-server',
      args: ['-m', '/models/q4.gguf', '--host', '127.0.0.1', '--port', '{port}', '--metrics', '-ngl', '99'],
    })
    // /metrics is on unless the caller already asked for it (not twice).
    expect(llamaCpp({ modelPath: '/m.gguf', args: ['--metrics'] }).args.filter((a) => a === '--metrics')).toHaveLength(
      1,
    )
  })

  test('command: the ready URL gives the server root', () => {
    expect(command(['./my-server', '--listen', '{port}'], { readyUrl: 'http://127.0.0.1:{port}/ready' })).toMatchObject(
      {
        name: 'my-server',
        command: './my-server',
        args: ['--listen', '{port}'],
        readyUrl: 'http://127.0.0.1:{port}/ready',
        baseUrl: 'http://127.0.0.1:{port}',
      },
    )
    expect(() => command([], { readyUrl: 'http://x' })).toThrow(TypeError)
  })
})

describe('serverKey', () => {
  test('same launch config, same key; timeouts and log folder do not matter', () => {
    const a = vllm({ model: 'm', args: ['--max-model-len', '4096'], env: { A: '1', B: '2' } })
    const b = vllm({
      model: 'm',
      args: ['--max-model-len', '4096'],
      env: { B: '2', A: '1' },
      startTimeoutMs: 5,
      logDir: '/tmp/x',
    })
    expect(serverKey(a)).toBe(serverKey(b))
    expect(serverKey(a)).toMatch(/^vllm:[0-9a-f]{16}$/)
  })

  test('model, arguments, environment and port change the key; secrets are not shown in it', () => {
    const base = serverKey(vllm({ model: 'm', env: { HF_TOKEN: 'hf_secret_value' } }))
    expect(base).not.toContain('hf_secret_value')
    expect(serverKey(vllm({ model: 'm2', env: { HF_TOKEN: 'hf_secret_value' } }))).not.toBe(base)
    expect(serverKey(vllm({ model: 'm', env: { HF_TOKEN: 'other' } }))).not.toBe(base)
    expect(serverKey(vllm({ model: 'm', env: { HF_TOKEN: 'hf_secret_value' }, port: 8000 }))).not.toBe(base)
    expect(serverKey(vllm({ model: 'm', env: { HF_TOKEN: 'hf_secret_value' }, args: ['--enforce-eager'] }))).not.toBe(
      base,
    )
  })

  test('a connected server is keyed by its root URL', () => {
    expect(serverKey(connect('http://127.0.0.1:8000/v1/'))).toBe(serverKey(connect('http://127.0.0.1:8000')))
    expect(serverKey(connect('http://user:pw@host:1'))).toBe('connect:http://***@host:1')
  })
})
