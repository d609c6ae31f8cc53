// Builds llama.cpp's `llama-server` and two tiny random-weight GGUF models (the second makes tool calls)
// into the cache outside the working tree (see llama-cache.ts), so that only the first run on a machine
// pays the compile.
//
//   npm exec -- node scripts/llama/build.ts            # build what is missing, print the manifest
//   npm exec -- node scripts/llama/build.ts --force    # rebuild everything
//
// The llama.cpp source comes from the npm registry: node-llama-cpp carries its release as a git
// bundle. It is installed into the cache (never into package.json) without optional GPU binaries
// and without install scripts, since all we need is the bundle.
//
// Environment: LLAMA_BUILD_JOBS (parallel compile jobs, default: CPU count), LLAMA_BUILD_NICE
// (nice level of the compile, default 10), VITEST_LLM_BENCH_CACHE_DIR / XDG_CACHE_HOME (cache root).
import { spawnSync, type SpawnSyncOptions } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  openSync,
  closeSync,
} from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import {
  LLAMA_RELEASE,
  MODEL_GENERATOR_VERSION,
  TOOL_MODEL_GENERATOR_VERSION,
  cacheRoot,
  findLlamaArtifacts,
  llamaDir,
  manifestPath,
  type LlamaManifest,
} from './llama-cache.ts'
import { writeTinyLlamaModel } from './tiny-model.ts'
import { TOOL_TEMPLATE_FILE, writeTinyToolModel } from './tool-model.ts'

const CMAKE_FLAGS = [
  '-DCMAKE_BUILD_TYPE=Release',
  '-DBUILD_SHARED_LIBS=OFF',
  '-DLLAMA_BUILD_TESTS=OFF',
  '-DLLAMA_BUILD_EXAMPLES=OFF',
  '-DLLAMA_BUILD_UI=OFF',
  // Off: it would fetch a prebuilt web UI, and CI machines have no route to it.
  '-DLLAMA_USE_PREBUILT_UI=OFF',
  '-DLLAMA_OPENSSL=OFF',
  // Off: a binary tuned to the build machine's CPU could crash on another machine sharing the cache.
  '-DGGML_NATIVE=OFF',
]

const VOCAB_FILE = 'ggml-vocab-llama-spm.gguf'

function main(): void {
  const force = process.argv.includes('--force')
  const started = performance.now()
  const existing = findLlamaArtifacts()
  if (!force && existing.found) {
    log(`cached: ${llamaDir()} (checked in ${seconds(performance.now() - started)} s)`)
    log(JSON.stringify(existing.manifest, null, 2))
    return
  }

  const dir = llamaDir()
  mkdirSync(dir, { recursive: true })
  const unlock = lock(join(dir, 'build.lock'))
  try {
    const bundle = fetchBundle()
    const src = cloneSource(bundle, join(dir, 'src'), force)
    const { serverPath, buildSeconds } = buildServer(src, join(dir, 'bin'), force)
    const serverVersion = versionOf(serverPath)
    const modelPath = join(dir, 'models', `tiny-llama-v${MODEL_GENERATOR_VERSION}.gguf`)
    if (force || !existsSync(modelPath)) {
      const t0 = performance.now()
      mkdirSync(join(dir, 'models'), { recursive: true })
      writeTinyLlamaModel({ vocabPath: join(src, 'models', VOCAB_FILE), outputPath: modelPath })
      log(`model: ${modelPath} (${statSync(modelPath).size} bytes, ${seconds(performance.now() - t0)} s)`)
    }
    const toolModelPath = join(dir, 'models', `tiny-tool-llama-v${TOOL_MODEL_GENERATOR_VERSION}.gguf`)
    if (force || !existsSync(toolModelPath)) {
      const t0 = performance.now()
      mkdirSync(join(dir, 'models'), { recursive: true })
      writeTinyToolModel({
        vocabPath: join(src, 'models', VOCAB_FILE),
        templatePath: join(src, TOOL_TEMPLATE_FILE),
        outputPath: toolModelPath,
      })
      const took = seconds(performance.now() - t0)
      log(`tool-call model: ${toolModelPath} (${statSync(toolModelPath).size} bytes, ${took} s)`)
    }
    const manifest: LlamaManifest = {
      release: LLAMA_RELEASE.release,
      commit: LLAMA_RELEASE.commit,
      nodeLlamaCppVersion: LLAMA_RELEASE.nodeLlamaCppVersion,
      serverPath,
      modelPath,
      modelBytes: statSync(modelPath).size,
      modelGeneratorVersion: MODEL_GENERATOR_VERSION,
      toolModelPath,
      toolModelBytes: statSync(toolModelPath).size,
      toolModelGeneratorVersion: TOOL_MODEL_GENERATOR_VERSION,
      serverVersion,
      serverBuildSeconds: buildSeconds ?? recordedBuildSeconds(join(dir, 'bin')),
    }
    const tmp = `${manifestPath()}.tmp-${process.pid}`
    writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`)
    renameSync(tmp, manifestPath())
    log(`done in ${seconds(performance.now() - started)} s`)
    log(JSON.stringify(manifest, null, 2))
  } finally {
    unlock()
  }
}

/** Installs node-llama-cpp into the cache (not the project) and returns its git bundle. */
function fetchBundle(): string {
  const prefix = join(cacheRoot(), `npm-node-llama-cpp-${LLAMA_RELEASE.nodeLlamaCppVersion}`)
  const llamaFolder = join(prefix, 'node_modules', 'node-llama-cpp', 'llama')
  const bundle = join(llamaFolder, 'gitRelease.bundle')
  if (!existsSync(bundle)) {
    mkdirSync(prefix, { recursive: true })
    log(
      `installing node-llama-cpp@${LLAMA_RELEASE.nodeLlamaCppVersion} into ${prefix} (for its llama.cpp source bundle)`,
    )
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
    run(
      npm,
      [
        'install',
        '--prefix',
        prefix,
        `node-llama-cpp@${LLAMA_RELEASE.nodeLlamaCppVersion}`,
        '--omit=optional',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        '--no-save',
      ],
      {
        // Belt and braces next to --ignore-scripts: node-llama-cpp's postinstall would fetch or build binaries.
        env: { ...process.env, NODE_LLAMA_CPP_SKIP_DOWNLOAD: 'true' },
      },
    )
  }
  const info = JSON.parse(readFileSync(join(llamaFolder, 'llama.cpp.info.json'), 'utf8')) as { tag?: string }
  if (info.tag !== LLAMA_RELEASE.release) {
    throw new Error(
      `node-llama-cpp@${LLAMA_RELEASE.nodeLlamaCppVersion} bundles llama.cpp ${info.tag}, scripts/llama/llama-release.json says ${LLAMA_RELEASE.release}: update the pin`,
    )
  }
  return bundle
}

function cloneSource(bundle: string, src: string, force: boolean): string {
  if (force) rmSync(src, { recursive: true, force: true })
  if (!existsSync(join(src, '.git'))) {
    rmSync(src, { recursive: true, force: true })
    log(`cloning ${bundle} -> ${src}`)
    run('git', ['-c', 'advice.detachedHead=false', 'clone', '--quiet', bundle, src])
  }
  const head = run('git', ['-C', src, 'rev-parse', 'HEAD'], { stdio: 'pipe' }).trim()
  if (head !== LLAMA_RELEASE.commit)
    throw new Error(`${src} is at ${head}, expected ${LLAMA_RELEASE.commit}: delete ${src} and run again`)
  return src
}

function buildServer(
  src: string,
  binDir: string,
  force: boolean,
): { serverPath: string; buildSeconds: number | undefined } {
  const serverPath = join(binDir, process.platform === 'win32' ? 'llama-server.exe' : 'llama-server')
  if (!force && existsSync(serverPath)) return { serverPath, buildSeconds: undefined }
  const buildDir = join(src, 'build')
  const ninja = spawnSync('ninja', ['--version'], { stdio: 'ignore' }).status === 0
  const jobs = Number(process.env.LLAMA_BUILD_JOBS) || availableParallelism()
  const niceLevel = process.env.LLAMA_BUILD_NICE ?? '10'
  const t0 = performance.now()
  log(`configuring llama.cpp ${LLAMA_RELEASE.release} (${ninja ? 'ninja' : 'make'}, ${jobs} jobs, nice ${niceLevel})`)
  run('cmake', ['-S', src, '-B', buildDir, ...(ninja ? ['-G', 'Ninja'] : []), ...CMAKE_FLAGS])
  const build = ['cmake', '--build', buildDir, '--target', 'llama-server', '-j', String(jobs)]
  const useNice =
    process.platform !== 'win32' && niceLevel !== '0' && spawnSync('nice', ['true'], { stdio: 'ignore' }).status === 0
  if (useNice) run('nice', ['-n', niceLevel, ...build])
  else run(build[0]!, build.slice(1))
  const buildSeconds = Math.round((performance.now() - t0) / 1000)
  mkdirSync(binDir, { recursive: true })
  writeFileSync(join(binDir, 'build-time.json'), `${JSON.stringify({ seconds: buildSeconds, jobs })}\n`)
  const tmp = `${serverPath}.tmp-${process.pid}`
  copyFileSync(join(buildDir, 'bin', process.platform === 'win32' ? 'llama-server.exe' : 'llama-server'), tmp)
  renameSync(tmp, serverPath)
  log(`llama-server built in ${buildSeconds} s: ${serverPath}`)
  return { serverPath, buildSeconds }
}

/** Compile time recorded when the server was built (a later run that only regenerates the model keeps it). */
function recordedBuildSeconds(binDir: string): number {
  try {
    const recorded = JSON.parse(readFileSync(join(binDir, 'build-time.json'), 'utf8')) as { seconds?: unknown }
    return typeof recorded.seconds === 'number' ? recorded.seconds : 0
  } catch {
    return 0
  }
}

/** One build per cache folder at a time; a lock left by a dead process is taken over. */
function lock(path: string): () => void {
  for (;;) {
    try {
      const fd = openSync(path, 'wx')
      writeFileSync(fd, String(process.pid))
      closeSync(fd)
      return () => rmSync(path, { force: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const owner = Number(readFileSync(path, 'utf8'))
      if (!alive(owner)) {
        rmSync(path, { force: true })
        continue
      }
      log(`waiting for the build in process ${owner} (${path})`)
      spawnSync('sleep', ['10'])
    }
  }
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** `llama-server --version` prints `version: 0.4.0-dev (build 1, commit 80fb11a)` on stderr. */
function versionOf(serverPath: string): string {
  const result = spawnSync(serverPath, ['--version'], { encoding: 'utf8' })
  if (result.status !== 0)
    throw new Error(
      `${serverPath} --version failed (${result.error?.message ?? result.stderr}): delete ${serverPath} and run again`,
    )
  const line = `${result.stdout}\n${result.stderr}`.split('\n').find((l) => l.startsWith('version:'))
  return line?.slice('version:'.length).trim() ?? 'unknown'
}

function run(cmd: string, args: string[], options: SpawnSyncOptions = {}): string {
  const result = spawnSync(cmd, args, { stdio: 'inherit', encoding: 'utf8', ...options })
  if (result.error) throw new Error(`${cmd} could not be started (${result.error.message}): install it and run again`)
  if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${result.status ?? result.signal}`)
  return typeof result.stdout === 'string' ? result.stdout : ''
}

function log(message: string): void {
  console.log(`[llama-build] ${message}`)
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1)
}

try {
  main()
} catch (error) {
  log(`failed: ${(error as Error).message}`)
  process.exitCode = 1
}
