import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join, relative, resolve, sep } from 'node:path'
import type { ParsedRegressionPolicy } from '../core/verdict/index.ts'
import { WorkloadError } from '../core/contract/errors.ts'
import type { BenchmarkResult } from '../core/contract/result.ts'
import type { SloOptions } from '../core/slo/index.ts'
import { SEGMENT_DIR_ENV } from './segment-env.ts'

/** Default folder of the segment files, in the working directory. */
export const DEFAULT_SEGMENT_DIR = 'llm-bench-segments'

/** What one host's segmented bench leaves for the merge: its result and what judging the merged result needs. */
export interface SegmentFile {
  kind: 'vitest-llm-bench-segment'
  version: 1
  /** The bench file, relative to the working directory, with `/` separators: where the merge finds its baseline. */
  file: string
  /** The bench's full name: its baseline entry's key. */
  name: string
  /** The bench's regression policy, parsed; `false`: no baseline. */
  policy: ParsedRegressionPolicy | false
  /** The bench's SLOs, checked. */
  slo: SloOptions | undefined
  result: BenchmarkResult
}

const safe = (text: string): string => text.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80)

/** Writes a segment's file into `LLM_BENCH_SEGMENT_DIR` (default `llm-bench-segments/`) and returns its path. */
export async function writeSegmentFile(
  file: string,
  name: string,
  policy: ParsedRegressionPolicy | false,
  slo: SloOptions | undefined,
  result: BenchmarkResult,
  env: Record<string, string | undefined> = process.env,
): Promise<string> {
  const dir = resolve(env[SEGMENT_DIR_ENV] || DEFAULT_SEGMENT_DIR)
  await mkdir(dir, { recursive: true })
  const segment = result.segment
  const path = join(
    dir,
    `${safe(relative(process.cwd(), file))}--${safe(name)}--${segment?.index ?? 0}-of-${segment?.count ?? 0}.json`,
  )
  const content: SegmentFile = {
    kind: 'vitest-llm-bench-segment',
    version: 1,
    file: relative(process.cwd(), file).split(sep).join('/'),
    name,
    policy,
    slo,
    result,
  }
  await writeFile(path, `${JSON.stringify(content)}\n`)
  return path
}

/** Every file under `dir` (subfolders too) whose JSON `kind` is `kind`, in path order; `hint` says where such files come from. */
export async function readKindFiles<T>(
  dir: string,
  kind: string,
  hint: string,
): Promise<Array<{ path: string; content: T }>> {
  let names: string[]
  try {
    names = (await readdir(dir, { recursive: true })).filter((name) => name.endsWith('.json')).sort()
  } catch (error) {
    throw new WorkloadError(`cannot be read (${(error as Error).message}). ${hint}`, { path: dir })
  }
  const out: Array<{ path: string; content: T }> = []
  for (const name of names) {
    const path = join(dir, name)
    let value: unknown
    try {
      value = JSON.parse(await readFile(path, 'utf8'))
    } catch (error) {
      throw new WorkloadError(
        `is not valid JSON (${(error as Error).message}). It is written whole by a bench; measure it again.`,
        { path },
      )
    }
    if ((value as { kind?: unknown } | null)?.kind !== kind) continue
    out.push({ path, content: value as T })
  }
  return out
}

/** Every segment file under `dir` (subfolders too: one per host's downloaded artifact), in path order. */
export async function readSegmentFiles(dir: string): Promise<Array<{ path: string; segment: SegmentFile }>> {
  const files = await readKindFiles<SegmentFile>(
    dir,
    'vitest-llm-bench-segment',
    `Give the folder the hosts' ${DEFAULT_SEGMENT_DIR}/ were collected into.`,
  )
  return files.map(({ path, content }) => ({ path, segment: content }))
}
