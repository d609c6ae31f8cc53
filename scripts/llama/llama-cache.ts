import { existsSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import release from './llama-release.json' with { type: 'json' }

/** The llama.cpp source this project builds: the release bundled by one node-llama-cpp version. */
export interface LlamaRelease {
  /** node-llama-cpp version whose `llama/gitRelease.bundle` carries the source. */
  nodeLlamaCppVersion: string
  /** llama.cpp release tag of that bundle (`llama/llama.cpp.info.json`). */
  release: string
  /** Commit of the bundle's HEAD. */
  commit: string
}

/** What `scripts/llama/build.ts` leaves in the cache once both artefacts are in place. */
export interface LlamaManifest {
  release: string
  commit: string
  nodeLlamaCppVersion: string
  /** Absolute path of the `llama-server` executable. */
  serverPath: string
  /** Absolute path of the generated tiny GGUF model. */
  modelPath: string
  /** Size of the model file, bytes. */
  modelBytes: number
  /** Version of the model generator that wrote `modelPath` (a new version writes a new file). */
  modelGeneratorVersion: number
  /** Absolute path of the generated tool-call model (scripts/llama/tool-model.ts): serve it with `--jinja`. */
  toolModelPath: string
  /** Size of the tool-call model file, bytes. */
  toolModelBytes: number
  /** Version of the generator that wrote `toolModelPath`. */
  toolModelGeneratorVersion: number
  /** `llama-server --version` output, first line. */
  serverVersion: string
  /** Wall time of the llama-server compile on the machine that built it, seconds. */
  serverBuildSeconds: number
}

/** Bumped whenever the generated model changes, so a cached older model is regenerated. */
export const MODEL_GENERATOR_VERSION = 1

/** Bumped whenever the generated tool-call model changes (its own file, so the tiny model stays as it is). */
export const TOOL_MODEL_GENERATOR_VERSION = 1

export const LLAMA_RELEASE: LlamaRelease = release

/**
 * Root of this project's cache, outside the working tree: `$VITEST_LLM_BENCH_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/vitest-llm-bench`, else `~/.cache/vitest-llm-bench`.
 */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.VITEST_LLM_BENCH_CACHE_DIR) return env.VITEST_LLM_BENCH_CACHE_DIR
  const xdg = env.XDG_CACHE_HOME || join(homedir(), '.cache')
  return join(xdg, 'vitest-llm-bench')
}

/** Folder of one llama.cpp release's artefacts: `<cacheRoot>/llama-<release>`. */
export function llamaDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheRoot(env), `llama-${LLAMA_RELEASE.release}`)
}

/** Path of the manifest that marks a complete build. */
export function manifestPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(llamaDir(env), 'manifest.json')
}

/** A usable build, or why there is none (a sentence that says what to run). */
export type LlamaArtifacts = { found: true; manifest: LlamaManifest } | { found: false; reason: string }

/** Reads the manifest and checks that the files it names exist and are current. */
export function findLlamaArtifacts(env: NodeJS.ProcessEnv = process.env): LlamaArtifacts {
  const path = manifestPath(env)
  const howTo =
    'run `npm exec -- node scripts/llama/build.ts` (needs git, cmake and a C++ compiler; 8 to 15 minutes on 2 cores the first time)'
  if (!existsSync(path)) return { found: false, reason: `no llama-server build at ${llamaDir(env)}: ${howTo}` }
  let manifest: LlamaManifest
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8')) as LlamaManifest
  } catch (error) {
    return { found: false, reason: `unreadable ${path} (${(error as Error).message}): ${howTo}` }
  }
  if (manifest.modelGeneratorVersion !== MODEL_GENERATOR_VERSION) {
    return {
      found: false,
      reason: `the cached model was written by generator v${manifest.modelGeneratorVersion}, this checkout needs v${MODEL_GENERATOR_VERSION}: ${howTo}`,
    }
  }
  if (manifest.toolModelGeneratorVersion !== TOOL_MODEL_GENERATOR_VERSION) {
    const had =
      manifest.toolModelGeneratorVersion === undefined
        ? 'no tool-call model'
        : `tool-call model v${manifest.toolModelGeneratorVersion}`
    return {
      found: false,
      reason: `the cache has ${had}, this checkout needs v${TOOL_MODEL_GENERATOR_VERSION}: ${howTo}`,
    }
  }
  for (const file of [manifest.serverPath, manifest.modelPath, manifest.toolModelPath]) {
    if (!existsSync(file)) return { found: false, reason: `${file} named in ${path} is missing: ${howTo}` }
  }
  return { found: true, manifest }
}
