/**
 * Writes a larger random-weight llama model than the build's tiny one, beside it in the llama cache, for
 * measurements where the server's per-token work should outweigh its per-request overheads (the tiny
 * model's decode step is mostly scheduling and HTTP, whose speed moves from one launch to the next).
 *
 *   npm exec -- node perf/llama-model.ts [--embd 256] [--layers 4] [--heads 8] [--ff 768]
 *
 * Prints the model's path; pass it to `perf/llama-ab.ts --model`. Needs the llama-server build
 * (scripts/llama/build.ts) for its vocabulary file.
 */
import { existsSync, statSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { writeTinyLlamaModel } from '../scripts/llama/tiny-model.ts'
import { findLlamaArtifacts, llamaDir } from '../scripts/llama/llama-cache.ts'

const { values } = parseArgs({
  options: {
    embd: { type: 'string', default: '256' },
    layers: { type: 'string', default: '4' },
    heads: { type: 'string', default: '8' },
    ff: { type: 'string', default: '768' },
  },
})
const artifacts = findLlamaArtifacts()
if (!artifacts.found) throw new Error(artifacts.reason)
const { manifest } = artifacts
const dir = llamaDir()
const [embd, layers, heads, ff] = [values.embd, values.layers, values.heads, values.ff].map(Number) as [
  number,
  number,
  number,
  number,
]
const out = path.join(path.dirname(manifest.modelPath), `llama-e${embd}-l${layers}-h${heads}-f${ff}.gguf`)
if (!existsSync(out)) {
  const started = performance.now()
  const summary = writeTinyLlamaModel({
    vocabPath: path.join(dir, 'src', 'models', 'ggml-vocab-llama-spm.gguf'),
    outputPath: out,
    embeddingLength: embd,
    blockCount: layers,
    headCount: heads,
    feedForwardLength: ff,
  })
  console.error(`wrote ${summary.bytes} bytes in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}
console.error(`${statSync(out).size} bytes`)
console.log(out)
