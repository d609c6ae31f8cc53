import { describe, expect, it } from 'vitest'
import { REDACTED, redactConfig } from '../../src/core/platform/redact.ts'

describe('redactConfig', () => {
  it('replaces secret-named values and URL credentials, keeps token-count options, drops functions and signals', () => {
    const out = redactConfig({
      target: {
        baseUrl: 'https://bench:hunter22@gpu-box:8000',
        apiKey: 'sk-1234',
        headers: { 'x-api-key': 'k-5678', 'x-team': 'serving' },
      },
      workload: { kind: 'synthetic', inputTokens: { mean: 128 }, outputTokens: { mean: 64 }, maxTokens: 32 },
      env: { HF_TOKEN: 'hf_abcd' },
      signal: new AbortController().signal,
      onProgress: () => {},
      prompts: ['see http://user:pw@host/x'],
    })
    expect(out).toEqual({
      target: {
        baseUrl: `https://${REDACTED}@gpu-box:8000`,
        apiKey: REDACTED,
        headers: { 'x-api-key': REDACTED, 'x-team': 'serving' },
      },
      workload: { kind: 'synthetic', inputTokens: { mean: 128 }, outputTokens: { mean: 64 }, maxTokens: 32 },
      env: { HF_TOKEN: REDACTED },
      prompts: [`see http://${REDACTED}@host/x`],
    })
  })
})
