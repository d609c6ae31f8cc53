/** The name the built-in simulator answers with (its `server` header) and runs under: one definition for every tier. */
export const SIMULATOR_SERVER_NAME = 'vitest-llm-bench-sim'
