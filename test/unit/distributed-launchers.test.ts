/**
 * The launchers of docs/distributed.md (a Kubernetes Indexed Job, a GitHub Actions matrix): both parse
 * as YAML, have the structure the page describes, and name only documented variables. Nothing here
 * can run them (no cluster, no GitHub); each check is also shown to catch a wrong file, by mutation.
 */
import { readFile } from 'node:fs/promises'
import { posix } from 'node:path'
import { describe, expect, test } from 'vitest'
import { parseAllDocuments } from 'yaml'
import { JOB_INDEX_ENV, SEGMENT_DIR_ENV, SEGMENT_ENV, SEGMENTS_ENV, START_AT_ENV } from '../../src/bench/segment-env.ts'

const root = new URL('../../', import.meta.url)
const MANIFEST = 'docs/distributed/k8s-indexed-job.yaml'
const WORKFLOW = 'docs/distributed/github-actions.yml'
const PAGE = 'docs/distributed.md'
const read = (file: string): Promise<string> => readFile(new URL(file, root), 'utf8')

type Obj = Record<string, unknown>
const obj = (value: unknown): Obj =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : {}
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)
/** A value at a path of keys, or undefined. */
const at = (value: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((v, k) => obj(v)[k], value)

/** Every document of a YAML text as plain data, or the parser's first error. */
function parseYaml(source: string): { docs: Obj[]; error?: string } {
  const parsed = parseAllDocuments(source)
  const documents = Array.isArray(parsed) ? parsed : []
  const error = documents.flatMap((d) => d.errors)[0]
  if (error) return { docs: [], error: error.message }
  return { docs: documents.map((d) => obj(d.toJS())).filter((d) => Object.keys(d).length > 0) }
}

/** Every LLM_BENCH_* or JOB_COMPLETION_INDEX named anywhere in a text, comments included. */
const segmentVariablesIn = (source: string): string[] => [
  ...new Set(source.match(/\b(?:LLM_BENCH_[A-Z0-9_]+|JOB_COMPLETION_INDEX)\b/g) ?? []),
]

/** The first column of the table under `## Variables` in docs/distributed.md. */
function documentedVariables(page: string): string[] {
  const section = page.split(/^## /m).find((s) => s.startsWith('Variables\n')) ?? ''
  return [...section.matchAll(/^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/gm)].map((m) => m[1] as string)
}

// --- Kubernetes ---------------------------------------------------------------------------------

interface Container {
  pod: Obj
  container: Obj
  env: Map<string, Obj>
  /** command and args, joined by spaces. */
  commandLine: string
}

function containerOf(job: Obj): Container {
  const pod = obj(at(job, 'spec', 'template', 'spec'))
  const container = obj(list(pod.containers)[0])
  const env = new Map(list(container.env).map((e) => [text(obj(e).name) ?? '', obj(e)] as const))
  const commandLine = [...list(container.command), ...list(container.args)].map(String).join(' ')
  return { pod, container, env, commandLine }
}

/** Where a path inside a container lies: the PersistentVolumeClaim mounted above it and the path within the claim. */
function onClaim(c: Container, path: string | undefined): { claim: string; within: string } | undefined {
  if (path === undefined || !path.startsWith('/')) return undefined
  for (const mount of list(c.container.volumeMounts).map(obj)) {
    const mountPath = text(mount.mountPath)
    if (mountPath === undefined) continue
    const within = posix.relative(mountPath, path)
    if (within.startsWith('..') || posix.isAbsolute(within)) continue
    const volume = list(c.pod.volumes)
      .map(obj)
      .find((v) => v.name === mount.name)
    const claim = text(at(volume, 'persistentVolumeClaim', 'claimName'))
    if (claim !== undefined) return { claim, within }
  }
  return undefined
}

/** Whether a `-l key=value` selector picks a document. */
function selects(selector: string, doc: Obj): boolean {
  const [key, value] = selector.split('=')
  return obj(at(doc, 'metadata', 'labels'))[key ?? ''] === value
}

/** What is wrong with the manifest: one line per problem, empty when nothing is. */
function manifestProblems(source: string): string[] {
  const { docs, error } = parseYaml(source)
  if (error) return [`not YAML: ${error}`]
  const problems: string[] = []
  const jobs = docs.filter((d) => d.kind === 'Job')
  const indexed = jobs.filter((j) => at(j, 'spec', 'completionMode') === 'Indexed')
  const others = jobs.filter((j) => at(j, 'spec', 'completionMode') !== 'Indexed')
  if (indexed.length !== 1 || others.length !== 1)
    return [`expected one Indexed Job and one merge Job, found ${indexed.length} and ${others.length}`]
  const load = indexed[0] as Obj
  const merge = others[0] as Obj
  const loadName = text(at(load, 'metadata', 'name'))
  const l = containerOf(load)
  const m = containerOf(merge)

  const count = Number(text(l.env.get(SEGMENTS_ENV)?.value))
  if (!Number.isInteger(count) || count < 2)
    problems.push(`${SEGMENTS_ENV} is not a number of segments: ${String(l.env.get(SEGMENTS_ENV)?.value)}`)
  if (at(load, 'spec', 'completions') !== count)
    problems.push(`completions ${String(at(load, 'spec', 'completions'))} is not ${SEGMENTS_ENV} ${count}`)
  if (at(load, 'spec', 'parallelism') !== count)
    problems.push(`parallelism ${String(at(load, 'spec', 'parallelism'))} is not ${SEGMENTS_ENV} ${count}`)
  if (l.env.has(SEGMENT_ENV))
    problems.push(`the Indexed Job sets ${SEGMENT_ENV}, which would override ${JOB_INDEX_ENV}`)
  if (!/\bvitest bench --run\b/.test(l.commandLine))
    problems.push(`the load pods do not run vitest bench --run: ${l.commandLine}`)

  // The start time: from a ConfigMap made at launch by the command in the header.
  const ref = obj(at(l.env.get(START_AT_ENV), 'valueFrom', 'configMapKeyRef'))
  const created =
    /kubectl create configmap (\S+) --from-literal=(\w+)=\$\(\(\s*\(\s*\$\(date \+%s\)\s*\+\s*\d+\s*\)\s*\*\s*1000\s*\)\)/.exec(
      source,
    )
  if (ref.name === undefined) problems.push(`${START_AT_ENV} does not come from a ConfigMap`)
  else if (!created) problems.push('no kubectl create configmap command sets the start time in epoch ms')
  else if (created[1] !== ref.name || created[2] !== ref.key)
    problems.push(
      `${START_AT_ENV} reads ConfigMap ${String(ref.name)} key ${String(ref.key)}, the command creates ${created[1]} key ${created[2]}`,
    )

  // The segment folder: on a ReadWriteMany claim, the same folder of it the merge reads.
  const segmentDir = text(l.env.get(SEGMENT_DIR_ENV)?.value)
  const written = onClaim(l, segmentDir)
  const claims = docs.filter((d) => d.kind === 'PersistentVolumeClaim')
  if (!written) problems.push(`${SEGMENT_DIR_ENV} ${String(segmentDir)} is not on a mounted PersistentVolumeClaim`)
  else {
    const claim = claims.find((c) => at(c, 'metadata', 'name') === written.claim)
    if (!list(at(claim, 'spec', 'accessModes')).includes('ReadWriteMany'))
      problems.push(`claim ${written.claim} is not a ReadWriteMany PersistentVolumeClaim of this file`)
  }
  const mergeDir = /\bvitest-llm-bench merge --dir (\S+)/.exec(m.commandLine)?.[1]
  if (mergeDir === undefined) problems.push(`the merge Job does not run vitest-llm-bench merge --dir: ${m.commandLine}`)
  else {
    const read = onClaim(m, mergeDir)
    if (!written || !read || read.claim !== written.claim || read.within !== written.within)
      problems.push(
        `the merge reads ${mergeDir}, not the folder the pods write (${String(segmentDir)} on the same claim)`,
      )
  }

  // The order in the header: apply the load (not the merge), wait for the load Job to complete, apply the merge.
  const applies = [...source.matchAll(/kubectl apply -f \S+ -l (\S+)/g)].map((a) => ({
    at: a.index,
    picked: docs.filter((d) => selects(a[1] as string, d)),
  }))
  const wait = new RegExp(`kubectl wait --for=condition=complete(?: --timeout=\\S+)? job/${loadName}\\b`).exec(source)
  const first = applies[0]
  const second = applies[1]
  if (applies.length !== 2 || !first || !second)
    problems.push(`expected two kubectl apply -l commands, found ${applies.length}`)
  else {
    if (!first.picked.includes(load) || first.picked.includes(merge) || claims.some((c) => !first.picked.includes(c)))
      problems.push('the first kubectl apply does not pick the volume and the load Job alone')
    if (second.picked.length !== 1 || second.picked[0] !== merge)
      problems.push('the second kubectl apply does not pick the merge Job alone')
    if (!wait || wait.index < first.at || wait.index > second.at)
      problems.push(`no kubectl wait --for=condition=complete job/${loadName} between the two applies`)
  }
  return problems
}

// --- GitHub Actions -----------------------------------------------------------------------------

const MATRIX_SEGMENT = /\$\{\{\s*matrix\.segment\s*\}\}/g
const globToRegExp = (glob: string): RegExp =>
  new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  )
const stepsOf = (job: unknown): Obj[] => list(at(job, 'steps')).map(obj)
const usesAction = (step: Obj, action: string): boolean => text(step.uses)?.startsWith(`${action}@`) ?? false
const trimSlash = (path: string | undefined): string | undefined => path?.replace(/\/+$/, '')
const needsOf = (job: unknown): unknown[] =>
  typeof at(job, 'needs') === 'string' ? [at(job, 'needs')] : list(at(job, 'needs'))

/** What is wrong with the workflow: one line per problem, empty when nothing is. */
function workflowProblems(source: string): string[] {
  const { docs, error } = parseYaml(source)
  if (error) return [`not YAML: ${error}`]
  const problems: string[] = []
  const jobs = obj(at(docs[0], 'jobs'))
  const matrixJobs = Object.entries(jobs).filter(([, job]) => at(job, 'strategy', 'matrix', 'segment') !== undefined)
  if (matrixJobs.length !== 1) return [`expected one job with a matrix over segment, found ${matrixJobs.length}`]
  const [matrixName, matrixJob] = matrixJobs[0] as [string, Obj]
  const segments = list(at(matrixJob, 'strategy', 'matrix', 'segment'))
  const n = segments.length
  if (n < 2 || segments.some((s, i) => s !== i + 1))
    problems.push(`the matrix is not segments 1..N: ${JSON.stringify(segments)}`)
  if (at(matrixJob, 'strategy', 'fail-fast') !== false)
    problems.push('fail-fast is not false: one failed segment would cancel the others')
  const env = obj(at(matrixJob, 'env'))
  const segment = text(env[SEGMENT_ENV])
  if (segment?.replace(MATRIX_SEGMENT, 'i') !== `i/${n}`)
    problems.push(`${SEGMENT_ENV} is ${String(segment)}, not \${{ matrix.segment }}/${n} (the matrix size)`)
  if (!stepsOf(matrixJob).some((s) => /\bvitest bench --run\b/.test(text(s.run) ?? '')))
    problems.push('no matrix step runs vitest bench --run')

  // The start: an output of an earlier job that runs once, written by a step as epoch ms.
  const startRef = /^\$\{\{\s*needs\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}$/.exec(text(env[START_AT_ENV]) ?? '')
  if (!startRef) problems.push(`${START_AT_ENV} is not an earlier job's output: ${String(env[START_AT_ENV])}`)
  else {
    const [, startName = '', output = ''] = startRef
    const startJob = jobs[startName]
    if (!needsOf(matrixJob).includes(startName)) problems.push(`the matrix job does not need ${startName}`)
    if (startJob === undefined || at(startJob, 'strategy') !== undefined)
      problems.push(`job ${startName} is missing or runs more than once`)
    const stepRef = /^\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}$/.exec(
      text(at(startJob, 'outputs', output)) ?? '',
    )
    const step = stepsOf(startJob).find((s) => s.id === stepRef?.[1])
    const writes = new RegExp(
      `echo "${stepRef?.[2]}=\\$\\(\\(\\s*\\(\\s*\\$\\(date \\+%s\\)\\s*\\+\\s*\\d+\\s*\\)\\s*\\*\\s*1000\\s*\\)\\)" >> "\\$GITHUB_OUTPUT"`,
    )
    if (!stepRef || !step || !writes.test(text(step.run) ?? ''))
      problems.push(`no step of ${startName} writes its output ${output} as epoch ms to $GITHUB_OUTPUT`)
  }

  // One artifact per segment, all of them downloaded into the folder the merge reads.
  const upload = stepsOf(matrixJob).find((s) => usesAction(s, 'actions/upload-artifact'))
  const uploadPath = trimSlash(text(at(upload, 'with', 'path')))
  if (uploadPath === undefined || uploadPath !== trimSlash(text(env[SEGMENT_DIR_ENV])))
    problems.push(`the upload's path ${String(uploadPath)} is not ${SEGMENT_DIR_ENV} ${String(env[SEGMENT_DIR_ENV])}`)
  const artifactNames = segments.map((s) => (text(at(upload, 'with', 'name')) ?? '').replace(MATRIX_SEGMENT, String(s)))
  if (new Set(artifactNames).size !== n)
    problems.push(`the artifact names are not one per segment: ${artifactNames.join(', ')}`)

  const mergeJobs = Object.entries(jobs).filter(([, job]) =>
    stepsOf(job).some((s) => /\bvitest-llm-bench merge --dir\b/.test(text(s.run) ?? '')),
  )
  if (mergeJobs.length !== 1)
    return [...problems, `expected one job running vitest-llm-bench merge --dir, found ${mergeJobs.length}`]
  const [, mergeJob] = mergeJobs[0] as [string, Obj]
  if (!needsOf(mergeJob).includes(matrixName)) problems.push(`the merge job does not need ${matrixName}`)
  if (!/!\s*cancelled\(\)/.test(text(at(mergeJob, 'if')) ?? ''))
    problems.push('the merge job does not run after a failed segment (if: !cancelled())')
  const download = stepsOf(mergeJob).find((s) => usesAction(s, 'actions/download-artifact'))
  const pattern = text(at(download, 'with', 'pattern'))
  if (pattern === undefined || artifactNames.some((a) => !globToRegExp(pattern).test(a)))
    problems.push(`the download's pattern ${String(pattern)} does not match every segment's artifact`)
  if (at(download, 'with', 'merge-multiple') !== false)
    problems.push('merge-multiple is not false: files of the same name from two segments would overwrite each other')
  const mergeRun = stepsOf(mergeJob)
    .map((s) => text(s.run) ?? '')
    .find((r) => /\bvitest-llm-bench merge --dir\b/.test(r))
  const mergeDir = /--dir (\S+)/.exec(mergeRun ?? '')?.[1]
  const downloadPath = text(at(download, 'with', 'path'))
  if (downloadPath === undefined || trimSlash(mergeDir) !== trimSlash(downloadPath))
    problems.push(`the merge reads ${String(mergeDir)}, the artifacts are downloaded to ${String(downloadPath)}`)

  // The server's URL is never printed.
  for (const job of Object.values(jobs))
    for (const s of stepsOf(job))
      if (/LLM_SERVER_URL/.test(text(s.run) ?? '')) problems.push(`a step's run names LLM_SERVER_URL: ${String(s.run)}`)
  return problems
}

// --- Variables ----------------------------------------------------------------------------------

/** Names of the environment variables a launcher sets: the containers' env in the manifest, the env maps of the workflow. */
function environmentNames(source: string): string[] {
  const names = new Set<string>()
  for (const doc of parseYaml(source).docs) {
    for (const c of list(at(doc, 'spec', 'template', 'spec', 'containers')))
      for (const e of list(at(c, 'env'))) names.add(String(at(e, 'name')))
    for (const key of Object.keys(obj(doc.env))) names.add(key)
    for (const job of Object.values(obj(doc.jobs))) {
      for (const key of Object.keys(obj(at(job, 'env')))) names.add(key)
      for (const step of stepsOf(job)) for (const key of Object.keys(obj(step.env))) names.add(key)
    }
  }
  return [...names]
}

/** Variables named in a launcher that the page's table does not document. */
function undocumented(source: string, page: string): string[] {
  const documented = documentedVariables(page)
  return [...new Set([...segmentVariablesIn(source), ...environmentNames(source)])].filter(
    (v) => !documented.includes(v),
  )
}

// --- Tests --------------------------------------------------------------------------------------

/** `source` with `from` replaced by `to` (the last occurrence when `last`); fails when `from` is not there, so a mutation never tests the unchanged file. */
function mutate(source: string, from: string, to: string, last = false): string {
  const index = last ? source.lastIndexOf(from) : source.indexOf(from)
  expect(index, `mutation target ${JSON.stringify(from)}`).toBeGreaterThanOrEqual(0)
  return source.slice(0, index) + to + source.slice(index + from.length)
}

describe('the Kubernetes manifest', () => {
  test('parses, and its Indexed Job, volume, start time and merge Job fit together', async () => {
    expect(manifestProblems(await read(MANIFEST))).toEqual([])
  })

  test.each([
    ['not YAML', 'completions: 4', 'completions: [4', 'not YAML'],
    ['a Job not Indexed', 'completionMode: Indexed', 'completionMode: NonIndexed', 'expected one Indexed Job'],
    ['completions off', 'completions: 4', 'completions: 3', 'completions 3 is not LLM_BENCH_SEGMENTS 4'],
    ['parallelism off', 'parallelism: 4', 'parallelism: 2', 'parallelism 2 is not LLM_BENCH_SEGMENTS 4'],
    ['LLM_BENCH_SEGMENTS off', "value: '4'", "value: '5'", 'completions 4 is not LLM_BENCH_SEGMENTS 5'],
    [
      'LLM_BENCH_SEGMENT set in the pods',
      '- name: LLM_BENCH_SEGMENTS',
      "- name: LLM_BENCH_SEGMENT\n              value: '1/4'\n            - name: LLM_BENCH_SEGMENTS",
      'which would override JOB_COMPLETION_INDEX',
    ],
    [
      'the pods not running vitest bench',
      'command: [npx, vitest, bench, --run]',
      'command: [npx, vitest, run]',
      'do not run vitest bench --run',
    ],
    ['the start time from a Secret', 'configMapKeyRef:', 'secretKeyRef:', 'does not come from a ConfigMap'],
    [
      'the start from another ConfigMap',
      'name: llm-bench-start',
      'name: llm-bench-begin',
      'reads ConfigMap llm-bench-begin key LLM_BENCH_START_AT, the command creates llm-bench-start',
    ],
    [
      'the start from another key',
      'key: LLM_BENCH_START_AT',
      'key: START',
      'key START, the command creates llm-bench-start key LLM_BENCH_START_AT',
    ],
    ['the start in seconds', '+ 120) * 1000 ))', '+ 120) ))', 'no kubectl create configmap command'],
    [
      'the segment folder off the volume',
      'value: /data/segments',
      'value: /tmp/segments',
      'LLM_BENCH_SEGMENT_DIR /tmp/segments is not on a mounted PersistentVolumeClaim',
    ],
    [
      'the volume mounted elsewhere',
      'mountPath: /data',
      'mountPath: /mnt',
      'is not on a mounted PersistentVolumeClaim',
    ],
    [
      'the claim not ReadWriteMany',
      'accessModes: [ReadWriteMany]',
      'accessModes: [ReadWriteOnce]',
      'is not a ReadWriteMany PersistentVolumeClaim',
    ],
    ['the merge reading another folder', '--dir, /data/segments', '--dir, /data/other', 'the merge reads /data/other'],
    [
      'the merge on another claim',
      'claimName: llm-bench-segments',
      'claimName: other',
      'the merge reads /data/segments, not the folder',
      true,
    ],
    [
      'the merge mounting the claim elsewhere',
      'mountPath: /data',
      'mountPath: /mnt',
      'the merge reads /data/segments, not the folder',
      true,
    ],
    ['no merge command', 'merge, --dir', 'merge-reports, --dir', 'does not run vitest-llm-bench merge --dir'],
    [
      'no wait for completion',
      'kubectl wait --for=condition=complete --timeout=2h job/llm-bench-load',
      'kubectl wait --for=condition=ready job/llm-bench-load',
      'no kubectl wait --for=condition=complete job/llm-bench-load',
    ],
    [
      'the merge Job applied with the load',
      'llm-bench/step: merge',
      'llm-bench/step: load',
      'the first kubectl apply does not pick the volume and the load Job alone',
    ],
    [
      'the volume left out of the first apply',
      'llm-bench/step: load',
      'llm-bench/step: volume',
      'the first kubectl apply does not pick the volume and the load Job alone',
    ],
  ])('catches %s', async (_what, from, to, problem, last = false) => {
    expect(manifestProblems(mutate(await read(MANIFEST), from, to, last)).join('\n')).toContain(problem)
  })
})

describe('the GitHub Actions workflow', () => {
  test('parses, and its start, matrix, artifacts and merge fit together', async () => {
    expect(workflowProblems(await read(WORKFLOW))).toEqual([])
  })

  test.each([
    ['not YAML', 'fail-fast: false', 'fail-fast: [false', 'not YAML'],
    [
      'a matrix of 3 against /4',
      'segment: [1, 2, 3, 4]',
      'segment: [1, 2, 3]',
      'not ${{ matrix.segment }}/3 (the matrix size)',
    ],
    ['a matrix from 0', 'segment: [1, 2, 3, 4]', 'segment: [0, 1, 2, 3]', 'the matrix is not segments 1..N'],
    ['another N', '${{ matrix.segment }}/4', '${{ matrix.segment }}/5', 'LLM_BENCH_SEGMENT is ${{ matrix.segment }}/5'],
    ['fail-fast', 'fail-fast: false', 'fail-fast: true', 'fail-fast is not false'],
    ['no vitest bench', 'run: npx vitest bench --run', 'run: npx vitest run', 'no matrix step runs vitest bench --run'],
    [
      'the start computed per segment',
      '${{ needs.start.outputs.start-at }}',
      '$(( $(date +%s) * 1000 ))',
      "LLM_BENCH_START_AT is not an earlier job's output",
    ],
    [
      'an output that does not exist',
      'needs.start.outputs.start-at',
      'needs.start.outputs.begin',
      'writes its output begin',
    ],
    ['the matrix not needing the start job', 'needs: start', 'needs: []', 'the matrix job does not need start'],
    [
      'the start step writing another name',
      'echo "start-at=',
      'echo "begin=',
      'writes its output start-at as epoch ms',
    ],
    ['the start in seconds', '+ 300) * 1000 ))', '+ 300) ))', 'writes its output start-at as epoch ms'],
    [
      'another upload path',
      'path: llm-bench-segments/',
      'path: other/',
      "the upload's path other is not LLM_BENCH_SEGMENT_DIR llm-bench-segments",
    ],
    [
      'one artifact name for all segments',
      'name: llm-bench-segment-${{ matrix.segment }}',
      'name: llm-bench-segment',
      'not one per segment',
    ],
    [
      'a pattern matching no segment',
      'pattern: llm-bench-segment-*',
      'pattern: llm-bench-report-*',
      'does not match every segment',
    ],
    ['merge-multiple', 'merge-multiple: false', 'merge-multiple: true', 'merge-multiple is not false', true],
    ['the merge not needing the matrix', 'needs: segment', 'needs: start', 'the merge job does not need segment'],
    [
      'the merge skipped after a failed segment',
      'if: ${{ !cancelled() }}\n    runs-on',
      'runs-on',
      'does not run after a failed segment',
    ],
    [
      'the merge reading another folder',
      '--dir llm-bench-segments',
      '--dir segments',
      'the merge reads segments, the artifacts are downloaded to llm-bench-segments',
    ],
    [
      'no merge command',
      'vitest-llm-bench merge --dir',
      'vitest-llm-bench merge-all --dir',
      'expected one job running vitest-llm-bench merge --dir',
    ],
    [
      'the server URL printed',
      '- run: npm ci',
      '- run: echo "$LLM_SERVER_URL"\n      - run: npm ci',
      "a step's run names LLM_SERVER_URL",
    ],
  ])('catches %s', async (_what, from, to, problem, last = false) => {
    expect(workflowProblems(mutate(await read(WORKFLOW), from, to, last)).join('\n')).toContain(problem)
  })
})

describe('the variables', () => {
  test('the table documents exactly the segment variables the code reads, and the launchers name only documented ones', async () => {
    const page = await read(PAGE)
    const documented = documentedVariables(page)
    expect(documented.filter((v) => segmentVariablesIn(v).length > 0).sort()).toEqual(
      [JOB_INDEX_ENV, SEGMENT_DIR_ENV, SEGMENT_ENV, SEGMENTS_ENV, START_AT_ENV].sort(),
    )
    for (const file of [MANIFEST, WORKFLOW]) expect(undocumented(await read(file), page), file).toEqual([])
    // Each launcher names the variables its hosts need (a check that the scan finds them at all).
    expect(segmentVariablesIn(await read(MANIFEST))).toEqual(
      expect.arrayContaining([JOB_INDEX_ENV, SEGMENTS_ENV, START_AT_ENV, SEGMENT_DIR_ENV]),
    )
    expect(segmentVariablesIn(await read(WORKFLOW))).toEqual(
      expect.arrayContaining([SEGMENT_ENV, START_AT_ENV, SEGMENT_DIR_ENV]),
    )
  })

  test.each([
    [
      'an undocumented LLM_BENCH_ variable in a comment',
      MANIFEST,
      '# Image:',
      '# LLM_BENCH_SEGMENT_COUNT is read too.\n# Image:',
      'LLM_BENCH_SEGMENT_COUNT',
    ],
    ['an undocumented environment variable', MANIFEST, '- name: CI', '- name: LLM_BENCH_CI', 'LLM_BENCH_CI'],
    ['an undocumented variable of another name', WORKFLOW, 'LLM_SERVER_URL: ${{', 'SERVER_URL: ${{', 'SERVER_URL'],
  ])('catches %s', async (_what, file, from, to, name) => {
    expect(undocumented(mutate(await read(file), from, to), await read(PAGE))).toContain(name)
  })

  test('catches a variable whose row is missing from the table', async () => {
    const page = mutate(await read(PAGE), '| `LLM_BENCH_SEGMENT_DIR` |', '| LLM_BENCH_SEGMENT_DIR |')
    expect(undocumented(await read(MANIFEST), page)).toEqual([SEGMENT_DIR_ENV])
    expect(undocumented(await read(WORKFLOW), page)).toEqual([SEGMENT_DIR_ENV])
  })
})
