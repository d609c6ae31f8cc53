import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  LlmCsvReporter,
  LlmJsonReporter,
  toGithubActionBenchmark,
  toJsonReport,
  type ReportEntry,
} from '../../reporters/index.ts'
import { toRequestsJsonl } from '../../reporters/json-report.ts'
import { runBenchmark } from '../../src/core/index.ts'
import {
  BENCHMARK_RESULT_SCHEMA,
  BENCHMARK_RESULT_SCHEMA_ID,
  JsonSchemaValidator,
  REPORT_SCHEMA,
  REPORT_SCHEMA_ID,
} from '../../src/core/contract/json-schema/index.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import { startSimulator } from '../../src/sim/index.ts'
import { moduleOf, reportEntries } from '../helpers/reporter-fixtures.ts'
import { configSummary, environmentSummary } from '../../reporters/inventory.ts'

const validator = new JsonSchemaValidator([BENCHMARK_RESULT_SCHEMA, REPORT_SCHEMA])

/** What a file reader sees: the report after a JSON round trip. */
function roundTrip<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value))
}

let simulated: BenchmarkResult

beforeAll(async () => {
  const sim = await startSimulator({})
  try {
    simulated = await runBenchmark({
      target: { baseUrl: sim.url },
      workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 8 } },
      load: { concurrency: 4, requests: 16 },
      recordRequests: true,
      goodput: { ttftMs: 5000 },
    })
  } finally {
    await sim.close()
  }
})

describe('JSON schema of BenchmarkResult', () => {
  test('a real result from the simulator validates, per-request records included', () => {
    expect(simulated.requests?.length).toBe(16)
    expect(validator.validate(BENCHMARK_RESULT_SCHEMA_ID, roundTrip(simulated))).toEqual([])
  })

  test('the fixed results (GPU telemetry, errors, goodput, timeline) validate', () => {
    for (const entry of reportEntries())
      expect(validator.validate(BENCHMARK_RESULT_SCHEMA_ID, roundTrip(entry.result))).toEqual([])
  })

  test('a broken result is reported member by member', () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- poking at arbitrary members of a parsed document
    const broken = roundTrip(reportEntries()[0]!.result) as Record<string, any>
    // 1 and 2 are both read (2 added `server`): 3 is a version this one does not know.
    broken.schemaVersion = 3
    broken.counts.failed = -1
    delete broken.metrics.ttftMs.p99
    broken.errors = [{ kind: 'oops', message: 'x', count: 1 }]
    broken.gpu.samples[0].t = 'soon'
    broken.surprise = true
    const paths = validator
      .validate(BENCHMARK_RESULT_SCHEMA_ID, broken)
      .map((violation) => `${violation.path}: ${violation.message}`)
    expect(paths).toEqual(
      expect.arrayContaining([
        '/schemaVersion: must be one of 1, 2, found 3',
        '/counts/failed: must be >= 0, found -1',
        '/metrics/ttftMs: must have property p99',
        expect.stringMatching(/^\/errors\/0\/kind: must be one of "http"/),
        '/gpu/samples/0/t: must be number, found string',
        '/surprise: is not allowed (additionalProperties: false)',
      ]),
    )
    expect(paths).toHaveLength(6)
  })

  test('the validator refuses keywords it does not implement', () => {
    const schema = { $id: 'https://example.com/s.json', type: 'object', oneOf: [] }
    expect(() => new JsonSchemaValidator([schema]).validate('https://example.com/s.json', {})).toThrow(
      /unsupported keyword oneOf/,
    )
  })
})

describe('toJsonReport', () => {
  test('the report of the fixed entries validates against the shipped report schema', () => {
    const report = toJsonReport(reportEntries(), { generatedAt: '2025-01-01T12:03:00.000Z' })
    expect(validator.validate(REPORT_SCHEMA_ID, roundTrip(report))).toEqual([])
    expect(report.benches.map((bench) => [bench.name, bench.status])).toEqual([
      ['chat > steady closed loop, 16 streams', 'pass'],
      ['chat > poisson arrivals, 20 req/s', 'fail'],
      ['completions > first run', 'pass'],
    ])
    expect(report.benches[0]!.result).toEqual(reportEntries()[0]!.result)
  })

  test('an interrupted run says by which signal, and still validates', () => {
    const report = toJsonReport(reportEntries(), { interrupted: 'SIGTERM' })
    expect(report.interrupted).toBe('SIGTERM')
    expect(validator.validate(REPORT_SCHEMA_ID, roundTrip(report))).toEqual([])
    expect(toJsonReport(reportEntries())).not.toHaveProperty('interrupted')
  })

  test('keeps per-request records only when asked', () => {
    const entry: ReportEntry = { name: 'sim', file: 'benches/sim.bench.ts', state: 'passed', result: simulated }
    expect(toJsonReport([entry]).benches[0]!.result.requests).toBeUndefined()
    const withRequests = toJsonReport([entry], { includeRequests: true })
    expect(withRequests.benches[0]!.result.requests).toHaveLength(16)
    expect(validator.validate(REPORT_SCHEMA_ID, roundTrip(withRequests))).toEqual([])
  })

  test('toRequestsJsonl writes one tagged record per line', () => {
    const entry: ReportEntry = { name: 'sim', file: 'benches/sim.bench.ts', state: 'passed', result: simulated }
    const lines = toRequestsJsonl([entry, ...reportEntries()])
      .trimEnd()
      .split('\n')
    expect(lines).toHaveLength(16)
    const first = JSON.parse(lines[0]!) as Record<string, unknown>
    expect(first.bench).toBe('sim')
    expect(first.index).toBe(simulated.requests![0]!.index)
    expect(first.chunkTimes).toEqual(simulated.requests![0]!.chunkTimes)
    expect(toRequestsJsonl(reportEntries())).toBe('')
  })
})

describe('toGithubActionBenchmark', () => {
  test('latencies and errors go to customSmallerIsBetter, throughputs to customBiggerIsBetter', () => {
    const output = toGithubActionBenchmark(reportEntries())
    const [steady] = reportEntries()
    const ttftP99 = output.smallerIsBetter.find(
      (point) => point.name === 'chat > steady closed loop, 16 streams - TTFT p99',
    )
    // `extra` carries the sample size, the baseline check, and what was measured on what (as every report does).
    const inventory = `${configSummary(steady!.result.config)}; ${environmentSummary(steady!.result.environment)}`
    expect(ttftP99).toEqual({
      name: 'chat > steady closed loop, 16 streams - TTFT p99',
      unit: 'ms',
      value: steady!.result.metrics.ttftMs.p99,
      extra: `n=500; ${inventory}`,
    })
    expect(inventory).toMatch(/concurrency 16/)
    const ttftP50 = output.smallerIsBetter.find(
      (point) => point.name === 'chat > steady closed loop, 16 streams - TTFT p50',
    )
    expect(ttftP50?.extra).toBe(`n=500; baseline 40.61 ms, pass; ${inventory}`)
    expect(
      output.biggerIsBetter.find((point) => point.name === 'chat > steady closed loop, 16 streams - output tokens/s')
        ?.value,
    ).toBe(1062.4)
    expect(
      output.smallerIsBetter.find((point) => point.name === 'chat > poisson arrivals, 20 req/s - error rate')?.value,
    ).toBe(3 / 400)
    // GPU figures only where sampled; ITL only where measured.
    expect(
      output.smallerIsBetter.some((point) => point.name === 'chat > steady closed loop, 16 streams - GPU peak memory'),
    ).toBe(true)
    expect(output.smallerIsBetter.some((point) => point.name === 'completions > first run - GPU peak memory')).toBe(
      false,
    )
    expect(output.smallerIsBetter.some((point) => point.name === 'completions > first run - ITL p50')).toBe(false)
    expect(output.biggerIsBetter.every((point) => point.unit === 'tok/s' || point.unit === 'req/s')).toBe(true)
    const names = [...output.smallerIsBetter, ...output.biggerIsBetter].map((point) => point.name)
    expect(new Set(names).size).toBe(names.length)
  })
})

describe('LlmJsonReporter', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'llm-json-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  test('a report that cannot be written: one line per reporter, the run fails, nothing thrown', async () => {
    // A regular file where the folder should be (EEXIST), as a read-only checkout gives EROFS.
    await writeFile(join(dir, 'not-a-folder'), 'x')
    const errors: string[] = []
    const logger = { log: () => undefined, error: (line: string) => errors.push(line) }
    const previous = process.exitCode
    try {
      for (const reporter of [
        new LlmJsonReporter({ outputFile: join(dir, 'not-a-folder', 'results.json') }),
        new LlmCsvReporter({ outputFile: join(dir, 'not-a-folder', 'results.csv') }),
      ]) {
        reporter.onInit({ logger, config: { root: dir } } as never)
        await reporter.onTestRunEnd([moduleOf(reportEntries())])
      }
      expect(process.exitCode).toBe(1)
    } finally {
      process.exitCode = previous
    }
    expect(errors).toHaveLength(2)
    expect(errors[0]).toMatch(
      new RegExp(
        `^vitest-llm-bench: cannot write the LLM bench JSON report to ${join(dir, 'not-a-folder', 'results.json')}: EEXIST: .*\\. Make that folder writable, or give the reporter another outputFile\\.$`,
      ),
    )
    expect(errors[1]).toContain('cannot write the LLM bench CSV to')
  })

  test('writes the report, the requests JSONL and the github-action-benchmark files', async () => {
    const entries: ReportEntry[] = [
      ...reportEntries(),
      { name: 'sim', file: 'benches/sim.bench.ts', state: 'passed', result: simulated },
    ]
    const reporter = new LlmJsonReporter({
      outputFile: join(dir, 'results.json'),
      requestsFile: join(dir, 'requests.jsonl'),
      githubActionBenchmark: {
        smallerIsBetterFile: join(dir, 'smaller.json'),
        biggerIsBetterFile: join(dir, 'bigger.json'),
      },
    })
    await reporter.onTestRunEnd([moduleOf(entries)])
    const report = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')) as {
      benches: Array<{ name: string; result: BenchmarkResult }>
    }
    expect(validator.validate(REPORT_SCHEMA_ID, report)).toEqual([])
    expect(report.benches.map((bench) => bench.name)).toEqual(entries.map((entry) => entry.name))
    expect(report.benches[3]!.result.requests).toBeUndefined()
    expect((await readFile(join(dir, 'requests.jsonl'), 'utf8')).trimEnd().split('\n')).toHaveLength(16)
    const smaller = JSON.parse(await readFile(join(dir, 'smaller.json'), 'utf8')) as unknown[]
    const bigger = JSON.parse(await readFile(join(dir, 'bigger.json'), 'utf8')) as unknown[]
    expect(smaller).toEqual(toGithubActionBenchmark(entries).smallerIsBetter)
    expect(bigger).toEqual(toGithubActionBenchmark(entries).biggerIsBetter)
  })
})
