import { describe, expect, test } from 'vitest'
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
