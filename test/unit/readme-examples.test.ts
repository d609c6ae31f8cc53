// Issue 31 (4): the README's headline example could never pass (its SLO asked for more output
// tokens per second than its load offers), and nothing checked. Every `bench.llm`, `.sweep` and
// `.compare` call in the README's TypeScript blocks, and in the docs pages its examples moved to
// (issue 50), is run here with a recording `bench`: each must pass the validation a bench gets at
// collection, raise no warning that its gates cannot decide, and, on an open loop, ask for no more
// output tokens per second than its load can offer.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, describe, expect, test } from 'vitest'
import { planCompare } from '../../src/bench/compare-bench-options.ts'
import { planBench, warnUndecidableGates } from '../../src/bench/plan-bench.ts'
import { validateBenchSweepOptions } from '../../src/bench/sweep-bench-options.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const work = mkdtempSync(join(tmpdir(), 'llm-bench-readme-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

interface Call {
  kind: 'llm' | 'sweep' | 'compare'
  name: string
  options: Record<string, unknown>
}

/** The pages whose examples a user copies: the README and the docs pages its sections moved to. */
const PAGES = [
  'README.md',
  'docs/setup.md',
  'docs/benches.md',
  'docs/workloads.md',
  'docs/sessions.md',
  'docs/ab.md',
  'docs/soak.md',
  'docs/sweeps.md',
]

/** The pages' TypeScript blocks that register benches, each with its page and the line it starts on. */
function readmeBlocks(): Array<{ page: string; line: number; code: string }> {
  const blocks: Array<{ page: string; line: number; code: string }> = []
  for (const page of PAGES) {
    const text = readFileSync(join(ROOT, page), 'utf8')
    for (const match of text.matchAll(/```ts\n([\s\S]*?)```/g)) {
      const code = match[1] ?? ''
      if (/\bbench\.llm(\.sweep|\.compare)?\(/.test(code))
        blocks.push({ page, line: text.slice(0, match.index).split('\n').length + 1, code })
    }
  }
  return blocks
}

/**
 * Runs one block with a `bench` that records its calls. Imports of the package become the sources;
 * names a fragment uses without defining (`workload`, `modelPath`) get example values.
 */
async function callsOf(code: string, index: number): Promise<Call[]> {
  const src = pathToFileURL(join(ROOT, 'src/index.ts')).href
  const body = code.replace(/^import .*$/gm, '')
  const prelude = [
    `import { command, connect, llamaCpp, sglang, simulator, vllm } from '${src}'`,
    'const calls = []',
    'const record = (kind) => (name, options) => { calls.push({ kind, name, options }) }',
    "const bench = { llm: Object.assign(record('llm'), { sweep: record('sweep'), compare: record('compare') }) }",
    /\bconst workload\b/.test(body)
      ? ''
      : "const workload = { kind: 'synthetic', inputTokens: { mean: 512 }, outputTokens: { mean: 128 } }",
    /\bconst modelPath\b/.test(body) ? '' : "const modelPath = './model.gguf'",
  ]
  const file = join(work, `block-${index}.ts`)
  writeFileSync(file, `${prelude.join('\n')}\n${body}\nexport default calls\n`)
  const module = (await import(pathToFileURL(file).href)) as { default: Call[] }
  return module.default
}

/** The most output tokens per second an open loop offers: its rate times the mean output length. */
function offeredOutputTokensPerSec(options: Record<string, unknown>): number | undefined {
  const load = options.load as { rate?: number; concurrency?: number } | undefined
  const workload = options.workload as { outputTokens?: { mean?: number } } | undefined
  if (load?.rate === undefined || load.concurrency !== undefined) return undefined
  const mean = workload?.outputTokens?.mean
  return mean === undefined ? undefined : load.rate * mean
}

describe("the README's bench examples", () => {
  const blocks = readmeBlocks()

  test('there are examples to check (the README and the docs have bench.llm, sweep and compare blocks)', () => {
    expect(blocks.filter((block) => block.page === 'README.md').length).toBeGreaterThanOrEqual(2)
    expect(blocks.length).toBeGreaterThanOrEqual(8)
  })

  test.each(blocks.map((block, index) => ({ ...block, index })))(
    'the block at $page line $line is valid, decidable and feasible as written',
    async ({ code, index }) => {
      const calls = await callsOf(code, index)
      expect(calls.length).toBeGreaterThan(0)
      for (const call of calls) {
        if (call.kind === 'sweep') {
          expect(() => validateBenchSweepOptions(call.name, call.options), call.name).not.toThrow()
          continue
        }
        if (call.kind === 'compare') {
          expect(() => planCompare(call.name, call.options), call.name).not.toThrow()
          continue
        }
        const plan = planBench(call.name, call.options, {})
        const warnings: string[] = []
        warnUndecidableGates(call.name, plan, {}, (line) => warnings.push(line))
        expect(warnings, call.name).toEqual([])
        const slo = call.options.slo as { outputTokensPerSec?: { min?: number } } | undefined
        const offered = offeredOutputTokensPerSec(call.options)
        const wanted = slo?.outputTokensPerSec?.min
        if (offered !== undefined && wanted !== undefined)
          expect(wanted, `${call.name}: an SLO above what the load offers can never pass`).toBeLessThanOrEqual(offered)
      }
    },
  )

  test('the check catches the example issue 31 found: 1,500 tok/s asked of rate 10 x 128 tokens', () => {
    const options = {
      workload: { kind: 'synthetic', inputTokens: { mean: 512 }, outputTokens: { mean: 128 } },
      load: { rate: 10, requests: 400 },
    }
    expect(offeredOutputTokensPerSec(options)).toBe(1280)
  })
})
