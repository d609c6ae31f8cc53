/**
 * Imported first by every entry of the package, for its side effect: on a Node.js older than the
 * package supports, loading it stops here with the version found and what to do, before undici is
 * evaluated (on Node 20 undici 8 fails at load with "Cannot read properties of undefined (reading
 * 'bind')", which names neither Node nor its version). Bun and Deno report a Node version of their
 * own and are not checked here.
 */

/** The oldest Node.js the package runs on (package.json `engines`). */
export const MINIMUM_NODE = [22, 12] as const

/** The error for a Node.js too old; undefined when `versions` is new enough, or not Node's. */
export function unsupportedNode(versions: { node?: string; bun?: string; deno?: string }): string | undefined {
  if (versions.bun !== undefined || versions.deno !== undefined || versions.node === undefined) return undefined
  const [major = 0, minor = 0] = versions.node.split('.').map(Number)
  if (major > MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor >= MINIMUM_NODE[1])) return undefined
  return (
    `vitest-llm-bench needs Node.js >= ${MINIMUM_NODE.join('.')}, and this is Node.js ${versions.node}. ` +
    'Install Node 22.12 or later (e.g. `nvm install 24`), or add the npm package `node` as a devDependency (`npm install -D node@24`): npm scripts and npx then run on it.'
  )
}

const problem = typeof process === 'undefined' ? undefined : unsupportedNode(process.versions)
if (problem !== undefined) throw new Error(problem)
