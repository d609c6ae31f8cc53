// The packed package in a scratch project, as scripts/vitest-lines/e2e.ts builds one: `npm pack` of this
// repository (its `prepare` builds dist/), then `npm install -D <tarball> vitest@<version> node@^24` in a folder
// under /tmp, so `npx vitest` runs on Node 24. Each row gets a folder of its own beside it whose node_modules is a
// link to the installed one.
import { spawnSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'

const repo = resolve(import.meta.dirname, '../..')

/** The installed scratch project. */
export interface Scratch {
  /** Folder under /tmp that holds everything of this matrix run. */
  root: string
  /** The packed tarball. */
  tarball: string
  /** Vitest's version as installed. */
  vitestVersion: string
  /** Node's version that `npx` runs there. */
  nodeVersion: string
}

function sh(cwd: string, command: string, args: string[], timeoutMs: number): { rc: number; output: string } {
  const ran = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 })
  return { rc: ran.status ?? 124, output: `${ran.stdout ?? ''}${ran.stderr ?? ''}` }
}

const tail = (text: string): string => text.trim().split('\n').slice(-8).join('\n')

/** The Vitest version this repository has installed (the npm cache holds it). */
function repoVitestVersion(): string {
  const manifest = JSON.parse(readFileSync(join(repo, 'node_modules/vitest/package.json'), 'utf8')) as {
    version: string
  }
  return manifest.version
}

/** Packs this repository and installs the tarball with Vitest and Node 24; throws with the tail of a failure. */
export function buildScratch(vitestRange = repoVitestVersion()): Scratch {
  const root = mkdtempSync(join(tmpdir(), 'fault-matrix-'))
  const packed = sh(repo, 'npm', ['pack', '--pack-destination', root, '--json'], 600_000)
  const name = /"filename":\s*"([^"]+)"/.exec(packed.output)?.[1]
  if (packed.rc !== 0 || !name || !existsSync(join(root, name)))
    throw new Error(`npm pack failed:\n${tail(packed.output)}`)
  const tarball = join(root, name)
  const install = join(root, 'install')
  mkdirSync(install)
  writeFileSync(join(install, 'package.json'), `${JSON.stringify({ name: 'fault-matrix', private: true }, null, 2)}\n`)
  const installed = sh(
    install,
    'npm',
    ['install', '--no-audit', '--no-fund', '-D', tarball, `vitest@${vitestRange}`, 'node@^24'],
    600_000,
  )
  if (installed.rc !== 0) throw new Error(`npm install failed:\n${tail(installed.output)}`)
  const vitestVersion = (
    JSON.parse(readFileSync(join(install, 'node_modules/vitest/package.json'), 'utf8')) as { version: string }
  ).version
  const nodeVersion = sh(install, 'npx', ['node', '--version'], 60_000).output.trim()
  return { root, tarball, vitestVersion, nodeVersion }
}

/**
 * A fresh folder for one row: package.json, node_modules linked to the installed project, and `files` (paths
 * relative to it, folders made as needed).
 */
export function rowProject(scratch: Scratch, id: string, files: Record<string, string>): string {
  const dir = join(scratch.root, 'rows', id)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: `row-${id}`, private: true }, null, 2)}\n`)
  symlinkSync(join(scratch.root, 'install/node_modules'), join(dir, 'node_modules'))
  writeFiles(dir, files)
  return dir
}

/** Writes `files` (paths relative to `dir`) under `dir`. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
}

/** A scratch folder kept by an earlier run (`--keep`), its rows removed: no pack, no install. */
export function reuseScratch(root: string): Scratch {
  const install = join(root, 'install')
  const tarball = readdirSync(root).find((name) => name.endsWith('.tgz'))
  if (!tarball || !existsSync(join(install, 'node_modules/vitest-llm-bench')))
    throw new Error(`${root} holds no packed and installed project`)
  rmSync(join(root, 'rows'), { recursive: true, force: true })
  const vitestVersion = (
    JSON.parse(readFileSync(join(install, 'node_modules/vitest/package.json'), 'utf8')) as { version: string }
  ).version
  const nodeVersion = sh(install, 'npx', ['node', '--version'], 60_000).output.trim()
  return { root, tarball: join(root, tarball), vitestVersion, nodeVersion }
}
