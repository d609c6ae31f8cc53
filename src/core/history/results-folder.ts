/**
 * The results.json files CI kept (the JSON reporter's output), read from a folder and its
 * subfolders: each bench's result becomes a point of that bench's history.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { isRecord } from '../contract/is-record.ts'
import type { BenchmarkResult } from '../contract/result.ts'
import { HistoryError } from './history-error.ts'

/** One bench's result in a kept report. */
export interface KeptResult {
  /** The bench file as the report names it (relative to the project root of that run). */
  file: string
  /** The bench's full name. */
  name: string
  result: BenchmarkResult
  /** The report it came from, relative to the folder's parent (as shown to the user). */
  resultsFile: string
}

/** The results of every report under `folder`, and the JSON files that are no report (`<path>: <why>`). */
export interface KeptResults {
  results: KeptResult[]
  skipped: string[]
}

async function jsonFilesUnder(folder: string): Promise<string[]> {
  let entries
  try {
    entries = await readdir(folder, { withFileTypes: true, recursive: true })
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error)
    throw new HistoryError(
      `Cannot read the results folder ${folder}: ${why}. ` +
        'Give --results the folder where CI keeps its results.json files.',
    )
  }
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort()
}

/** Reads every vitest-llm-bench JSON report under `folder` (recursively). */
export async function readKeptResults(folder: string, shownFrom: string): Promise<KeptResults> {
  const results: KeptResult[] = []
  const skipped: string[] = []
  for (const path of await jsonFilesUnder(folder)) {
    const shown = relative(shownFrom, path) || path
    let report: unknown
    try {
      report = JSON.parse(await readFile(path, 'utf8'))
    } catch (error) {
      skipped.push(`${shown}: not JSON (${error instanceof Error ? error.message : String(error)})`)
      continue
    }
    if (!isRecord(report) || report.tool !== 'vitest-llm-bench' || !Array.isArray(report.benches)) {
      skipped.push(`${shown}: not a vitest-llm-bench JSON report`)
      continue
    }
    for (const bench of report.benches) {
      if (!isRecord(bench) || typeof bench.name !== 'string' || !isRecord(bench.result)) continue
      const result = bench.result as unknown as BenchmarkResult
      // A report of another schema still names its figures the same; one without them is no point.
      if (
        !isRecord(result.metrics) ||
        !isRecord(result.throughput) ||
        !isRecord(result.environment) ||
        typeof result.startedAt !== 'string'
      )
        continue
      results.push({
        file: typeof bench.file === 'string' ? bench.file : '',
        name: bench.name,
        result,
        resultsFile: shown,
      })
    }
  }
  return { results, skipped }
}
