/**
 * Out-of-memory words in a server's log, and what to do when they come from a server started beside another (arms
 * together: both revisions' or variants' servers up at once on one GPU or host).
 */

/**
 * What vLLM, SGLang and llama.cpp print when a start or a request does not fit: PyTorch's `OutOfMemoryError`
 * ("CUDA out of memory"), vLLM's "No available memory for the cache blocks" and its KV-cache check ("... is larger
 * than the available KV cache memory"), ggml's "failed to allocate" and "cudaMalloc failed", SGLang's "Not enough
 * memory".
 */
const OUT_OF_MEMORY =
  /out of memory|OutOfMemoryError|No available memory for the cache blocks|available KV cache memory|failed to allocate|cudaMalloc failed|Not enough memory/i

/**
 * The advice for a server that ran out of memory while another arm's server was up, or undefined when `log` names no
 * such failure. `beside` names the other arm(s).
 */
export function outOfMemoryBeside(log: string, beside: string): string | undefined {
  if (!OUT_OF_MEMORY.test(log)) return undefined
  return (
    `Its server ran out of memory with ${beside}'s up beside it (arms together). Give each server its share ` +
    '(vLLM `--gpu-memory-utilization`, SGLang `--mem-fraction-static`, summing under 1; llama-server a smaller `-c`), ' +
    "or measure the arms one at a time: `--arms apart` (ab), `arms: 'apart'` (bench.llm.compare)."
  )
}
