import { describe, expect, test } from 'vitest'
import { readFileSync } from 'node:fs'
import { unsupportedNode } from '../../src/core/platform/supported-node.ts'

describe('unsupportedNode', () => {
  test('Node older than 22.12 is named with what to do; newer Node, Bun and Deno pass', () => {
    expect(unsupportedNode({ node: '20.20.2' })).toBe(
      'vitest-llm-bench needs Node.js >= 22.12, and this is Node.js 20.20.2. Install Node 22.12 or later (e.g. `nvm install 24`), or add the npm package `node` as a devDependency (`npm install -D node@24`): npm scripts and npx then run on it.',
    )
    expect(unsupportedNode({ node: '22.11.0' })).toContain('this is Node.js 22.11.0')
    expect(unsupportedNode({ node: '22.12.0' })).toBeUndefined()
    expect(unsupportedNode({ node: '24.21.0' })).toBeUndefined()
    expect(unsupportedNode({ node: '20.0.0', bun: '1.4.5' })).toBeUndefined()
    expect(unsupportedNode({ node: '20.11.1', deno: '2.9.6' })).toBeUndefined()
  })
})

describe('every Node entry of the package checks the version first', () => {
  // The package's entries for Node, from package.json `exports` and `bin`, as their sources. Bun and
  // Deno report a Node version of their own (see supported-node.ts) and are left out.
  const root = new URL('../../', import.meta.url)
  const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
    exports: Record<string, string | { default: string }>
  }
  const entries = Object.entries(manifest.exports)
    .filter(([subpath, target]) => typeof target !== 'string' && !/\/(bun|deno)$/.test(subpath))
    .map(([subpath, target]) => {
      const built = (target as { default: string }).default
      return [subpath, built.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')] as const
    })
  entries.push(['bin (CLI)', 'src/cli.ts'])

  test.each(entries)('%s (%s): its first import is supported-node', (_subpath, source) => {
    const text = readFileSync(new URL(source, root), 'utf8')
    const firstImport = /^import\s[^\n]*$/m.exec(text)?.[0]
    expect(firstImport).toMatch(/^import '(\.\.?\/)+(src\/)?(core\/)?platform\/supported-node\.ts'$/)
  })

  test('the entries checked include the reporters and the simulator', () => {
    expect(entries.map(([, source]) => source)).toEqual(
      expect.arrayContaining(['src/index.ts', 'src/core/index.ts', 'src/sim/index.ts', 'reporters/index.ts']),
    )
  })
})
