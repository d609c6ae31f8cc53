// Where bench.llm.compare's arms run: every rule of `auto`, and `together` refused where a load cannot be sliced.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { armNeedOf, placeArms } from '../../src/bench/arms-placement.ts'
import { simulator } from '../../src/bench/bench-options.ts'
import { OptionsError } from '../../src/core/contract/errors.ts'
import { planRun } from '../../src/core/plan/index.ts'
import { command, connect, llamaCpp, sglang, vllm } from '../../src/core/server/presets.ts'

const dir = mkdtempSync(path.join(os.tmpdir(), 'arms-placement-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const model = path.join(dir, 'model.gguf')
writeFileSync(model, Buffer.alloc(1024 * 1024))
const MiB = 1024 ** 2
const run = planRun({
  workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 4 } },
  load: { concurrency: 2, requests: 40 },
})
const arms = (...servers: Parameters<typeof armNeedOf>[1][]) =>
  servers.map((server, i) => armNeedOf(`arm ${i}`, server, run))

describe('placeArms', () => {
  test('auto: simulators and connected servers together, a command apart', () => {
    expect(placeArms('auto', arms(simulator(), simulator()))).toEqual({
      mode: 'together',
      why: 'the simulators run in this process',
    })
    expect(placeArms('auto', arms(connect('http://127.0.0.1:1'), connect('http://127.0.0.1:2'))).mode).toBe('together')
    expect(placeArms('auto', arms(command(['srv', '{port}']), command(['srv', '{port}'])))).toMatchObject({
      mode: 'apart',
      why: expect.stringContaining('the memory a launched command needs is unknown'),
    })
  })

  test('auto, llama-server: together while the model files and 512 MiB each fit the free memory', () => {
    const two = arms(llamaCpp({ modelPath: model }), llamaCpp({ modelPath: model, args: ['-ub', '1'] }))
    // Need: 2 x (1 MiB + 512 MiB) = 1026 MiB.
    expect(placeArms('auto', two, 1026 * MiB)).toEqual({
      mode: 'together',
      why: 'the launched servers fit beside each other',
    })
    expect(placeArms('auto', two, 1025 * MiB)).toEqual({
      mode: 'apart',
      why: 'the llama-servers need about 1.0 GiB (model files and 512 MiB each), 1.0 GiB is free',
    })
    const missing = arms(llamaCpp({ modelPath: model }), llamaCpp({ modelPath: path.join(dir, 'none.gguf') }))
    expect(placeArms('auto', missing, 1e12).why).toBe("the model file of 'arm 1' cannot be read to size it")
  })

  test('auto, vLLM and SGLang: together only when every arm gives its GPU memory share, summing under 1', () => {
    const share = (value: string) => vllm({ model: 'm', args: ['--gpu-memory-utilization', value] })
    expect(placeArms('auto', arms(share('0.45'), share('0.45'))).mode).toBe('together')
    expect(placeArms('auto', arms(share('0.5'), share('0.5'))).why).toBe(
      "the arms' --gpu-memory-utilization sum to 1.00, not under 1",
    )
    expect(placeArms('auto', arms(share('0.4'), vllm({ model: 'm' }))).why).toBe(
      "'arm 1' does not give its share of GPU memory (--gpu-memory-utilization): each arm needs one",
    )
    const sg = (value: string) => sglang({ model: 'm', args: [`--mem-fraction-static=${value}`] })
    expect(placeArms('auto', arms(sg('0.4'), sg('0.4'))).mode).toBe('together')
  })

  test('apart and together as asked; together refused for a load that cannot be sliced', () => {
    expect(placeArms('apart', arms(simulator(), simulator())).mode).toBe('apart')
    expect(placeArms('together', arms(command(['a', '{port}']), command(['b', '{port}']))).mode).toBe('together')
    const ramp = planRun({
      workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 4 } },
      load: { concurrency: 2, requests: 40, rampUp: { from: 1, durationMs: 1000 } },
    })
    const ramped = [armNeedOf('a', simulator(), ramp)]
    expect(() => placeArms('together', ramped)).toThrow(OptionsError)
    expect(placeArms('auto', ramped)).toEqual({
      mode: 'apart',
      why: 'a ramp-up shapes the whole run, so its load cannot be cut into slices',
    })
  })
})
