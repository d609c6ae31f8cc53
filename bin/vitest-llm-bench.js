#!/usr/bin/env node
// Runs the built CLI when the package has been built, else the TypeScript sources, which
// Node >= 23.6 runs directly (type stripping; not inside node_modules, hence the build).
import { existsSync } from 'node:fs'

const built = ['../dist/src/cli.js', '../dist/cli.js']
  .map((p) => new URL(p, import.meta.url))
  .find((url) => existsSync(url))
const entry = built ?? new URL('../src/cli.ts', import.meta.url)

const TYPE_STRIPPING_FAILURES = new Set([
  'ERR_UNKNOWN_FILE_EXTENSION',
  'ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING',
  'ERR_NO_TYPESCRIPT',
])

let cli
try {
  cli = await import(entry.href)
} catch (error) {
  if (built || !TYPE_STRIPPING_FAILURES.has(error?.code)) throw error
  console.error(
    `vitest-llm-bench: cannot load the CLI. There is no build in dist/ and Node ${process.version} cannot run the TypeScript sources (${error.code}).\n` +
      'Either build the package (npm run build) or use Node >= 23.6 (e.g. `npm exec -- node bin/vitest-llm-bench.js ...` in this repository).',
  )
  process.exit(1)
}

process.exitCode = await cli.runCli(process.argv.slice(2))
