import { describe, expect, test } from 'vitest'
import { outOfMemoryBeside } from '../../src/core/server/out-of-memory.ts'

describe('outOfMemoryBeside', () => {
  test.each([
    'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB',
    'ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`',
    'ValueError: To serve at least one request ... is larger than the available KV cache memory (1.2 GiB)',
    'ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4096.00 MiB on device 0: cudaMalloc failed: out of memory',
    'llama_init_from_model: failed to allocate buffer for kv cache',
    'RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.',
  ])('names what to do after %s', (line) => {
    expect(outOfMemoryBeside(`INFO loading\n${line}\n`, 'the base arm')).toMatch(
      /^Its server ran out of memory with the base arm's up beside it \(arms together\)\..*--arms apart/,
    )
  })

  test('says nothing for another failure', () => {
    expect(outOfMemoryBeside('OSError: model not found\nexit code 1', 'control')).toBeUndefined()
  })
})
