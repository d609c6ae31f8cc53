// The scratch project's files, as a user writes them: a vitest.config.mts with the plugin and file reporters, and
// bench files that import only the package's public entries ('vitest-llm-bench', '/reporters').

/** The reporters a config may list beside Vitest's default one. */
export type FileReporter = 'json' | 'markdown' | 'csv' | 'html'

const REPORTER_CLASS: Record<FileReporter, string> = {
  json: 'LlmJsonReporter',
  markdown: 'LlmMarkdownReporter',
  csv: 'LlmCsvReporter',
  html: 'LlmHtmlReporter',
}

/** vitest.config.mts: the plugin and the given file reporters (JSON and Markdown unless told). */
export function configFile(reporters: FileReporter[] = ['json', 'markdown']): string {
  const classes = reporters.map((r) => REPORTER_CLASS[r])
  return [
    `import { defineConfig } from 'vitest/config'`,
    `import { llmBench } from 'vitest-llm-bench'`,
    ...(classes.length ? [`import { ${classes.join(', ')} } from 'vitest-llm-bench/reporters'`] : []),
    ``,
    `export default defineConfig({`,
    `  cacheDir: '.vite-cache',`,
    `  plugins: [llmBench()],`,
    `  test: { reporters: ['default'${classes.map((c) => `, new ${c}()`).join('')}] },`,
    `})`,
    ``,
  ].join('\n')
}

const FAST_TIMINGS = 'prefillBaseMs: 2, prefillMsPerToken: 0.01, decodeBaseMs: 1, decodeMsPerSequence: 0.05'

/** A fast simulator: TTFT about 3 ms, 1 ms per decode step; `extra` is more object-literal text (`faults: …`). */
export const fastSim = (extra = ''): string => `simulator({ ${[FAST_TIMINGS, ...(extra ? [extra] : [])].join(', ')} })`

/** The options of a small synthetic bench, as object-literal text; `fields` replaces or adds whole fields. */
export function benchOptions(requests: number, fields: Record<string, string> = {}): string {
  const all: Record<string, string> = {
    server: fastSim(),
    workload: `{ kind: 'synthetic', inputTokens: { mean: 32 }, outputTokens: { mean: 8 } }`,
    load: `{ concurrency: 4, requests: ${requests} }`,
    warmup: `{ requests: 2 }`,
    seed: '1',
    trials: `{ record: 1, max: 1 }`,
    ...fields,
  }
  const body = Object.entries(all)
    .filter(([, value]) => value !== '')
    .map(([key, value]) => `  ${key}: ${value},`)
    .join('\n')
  return `{\n${body}\n}`
}

/** A bench file: `imports` from 'vitest-llm-bench', then one `bench.llm(name, options)` per entry. */
export function benchFile(entries: Array<[name: string, options: string]>, imports = ['bench', 'simulator']): string {
  const blocks = entries.map(([name, options]) => `bench.llm(${JSON.stringify(name)}, ${options})`)
  return `import { ${imports.join(', ')} } from 'vitest-llm-bench'\n\n${blocks.join('\n\n')}\n`
}
