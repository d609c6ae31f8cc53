/** Each entry exports exactly the values docs/api.md lists: a new export is a decision, written down. */
import { readFile } from 'node:fs/promises'
import { describe, expect, test } from 'vitest'

const root = new URL('../../', import.meta.url)
/** The package's exports map, from package.json, to the source files the built files come from. */
const ENTRIES: Record<string, string> = {
  'vitest-llm-bench': 'src/index.ts',
  'vitest-llm-bench/core': 'src/core/index.ts',
  'vitest-llm-bench/sim': 'src/sim/index.ts',
  'vitest-llm-bench/reporters': 'reporters/index.ts',
  'vitest-llm-bench/bun': 'src/bun/index.ts',
  'vitest-llm-bench/deno': 'src/deno/index.ts',
}

/** The names docs/api.md lists under each `## \`entry\`` heading (every backticked name a bullet starts with). */
async function documented(): Promise<Map<string, string[]>> {
  const text = await readFile(new URL('docs/api.md', root), 'utf8')
  const sections = new Map<string, string[]>()
  let current: string[] | undefined
  for (const line of text.split('\n')) {
    const heading = /^## `([^`]+)`/.exec(line)
    if (heading?.[1]) sections.set(heading[1], (current = []))
    const bullet = /^- ((?:`[A-Za-z_$][\w$]*`(?:, )?)+):/.exec(line)
    if (bullet?.[1] && current) current.push(...[...bullet[1].matchAll(/`([^`]+)`/g)].map((m) => m[1] as string))
  }
  return sections
}

/** Runtime names an entry exports, read from its `export { ... }` statements (Bun's entry imports `bun:test`, which Node cannot load). */
async function exportedByStatements(file: string): Promise<string[]> {
  const text = await readFile(new URL(file, root), 'utf8')
  const names: string[] = []
  for (const match of text.matchAll(/^export \{([^}]*)\} from/gm))
    names.push(
      ...(match[1] ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== ''),
    )
  expect(text, `${file} re-exports values only by name`).not.toMatch(/^export \* from/m)
  return names
}

describe('the public API is what docs/api.md lists', async () => {
  const docs = await documented()
  test('docs/api.md has a section for every entry of package.json and no other', async () => {
    const pkg = JSON.parse(await readFile(new URL('package.json', root), 'utf8')) as {
      exports: Record<string, unknown>
    }
    const entries = Object.keys(pkg.exports)
      .filter((key) => key !== './package.json')
      .map((key) => (key === '.' ? 'vitest-llm-bench' : `vitest-llm-bench/${key.slice(2)}`))
    expect([...docs.keys()].sort()).toEqual(entries.sort())
    expect(Object.keys(ENTRIES).sort()).toEqual(entries.sort())
  })

  test.each(Object.entries(ENTRIES))('%s exports exactly the listed values', async (entry, file) => {
    const listed = docs.get(entry) ?? []
    const actual = entry.endsWith('/bun')
      ? await exportedByStatements(file)
      : Object.keys(await import(new URL(file, root).href))
    expect(new Set(listed).size, `${entry}: a name listed twice`).toBe(listed.length)
    expect([...actual].sort()).toEqual([...listed].sort())
  })

  test('the statement reader agrees with the module loader (on the Deno entry, which Node can load)', async () => {
    const loaded = Object.keys(await import(new URL(ENTRIES['vitest-llm-bench/deno'] as string, root).href))
    expect((await exportedByStatements(ENTRIES['vitest-llm-bench/deno'] as string)).sort()).toEqual(loaded.sort())
  })
})
