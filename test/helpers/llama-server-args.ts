/**
 * llama-server arguments of the end-to-end tests: 2 threads (CI machines have 2 cores), 2 slots
 * (`-np`, so a third concurrent request queues), 2048 tokens of context shared by the slots.
 */
export const LLAMA_E2E_SERVER_ARGS = ['-t', '2', '-np', '2', '-c', '2048']
