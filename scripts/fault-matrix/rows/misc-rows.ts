// Secrets in everything written, memory over 20,000 requests, and the reports: an unwritable report folder, and
// two runs in one project.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { benchFile, benchOptions, configFile, fastSim } from '../fixtures.ts'
import { mount, unmountUnder } from '../mounts.ts'
import { describeLeft, processesOf } from '../processes.ts'
import { llamaServer } from './llama.ts'
import { exitText, hasNodeStack, joined, quote, reportedBenches, sleep } from './observe.ts'
import type { Row } from './row.ts'

const SECRETS = ['sk-fm-apikey-7f3a9c2e51', 'tok-fm-header-4d8b1e6a90', 'hf_fmTokenQ2w9Zr7Lx4']

/** Every file under `dir` but node_modules, Vite's cache and `skip` (relative names), with its text. */
function filesUnder(dir: string, skip: string[]): Array<{ path: string; text: string }> {
  const found: Array<{ path: string; text: string }> = []
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name)
      if (['node_modules', '.vite-cache'].includes(entry.name) || skip.some((s) => path === join(dir, s))) continue
      if (entry.isDirectory()) walk(path)
      else if (entry.isFile()) found.push({ path, text: readFileSync(path, 'latin1') })
    }
  }
  walk(dir)
  return found
}

/** Resident memory of a process, MB (0 when gone). */
function rssMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb ? Number(kb) / 1024 : 0
  } catch {
    return 0
  }
}

export const miscRows: Row[] = [
  {
    id: 'secrets-redacted',
    family: 'secrets',
    does: 'llama-server --verbose with apiKey, an X-Api-Token header and HF_TOKEN in its env; 16 requests',
    expects: 'exit 0; none of the three in the console, the reports or the server log (which exists)',
    run: async (row) => {
      const [key, header, hf] = SECRETS
      row.write({
        'vitest.config.mts': configFile(['json', 'markdown', 'csv', 'html']),
        'benches/a.bench.ts': benchFile(
          [
            [
              'secret',
              benchOptions(16, {
                server: llamaServer(
                  row,
                  ['-t', '2', '-np', '2', '-c', '1024', '--verbose'],
                  `apiKey: '${key}', env: { HF_TOKEN: '${hf}' }`,
                ),
                target: `{ headers: { 'X-Api-Token': '${header}' } }`,
                baseline: 'false',
              }),
            ],
          ],
          ['bench', 'llamaCpp'],
        ),
      })
      const ran = await row.bench([])
      const written = filesUnder(row.dir, ['benches/a.bench.ts', 'logs'])
      const logs = written.filter((f) => f.path.includes('/.llm-bench/'))
      const leaks = [{ path: 'console', text: ran.output }, ...written].flatMap((f) =>
        SECRETS.filter((s) => f.text.includes(s)).map((s) => `${s.slice(0, 6)}… in ${f.path.replace(row.dir, '.')}`),
      )
      const logBytes = logs.reduce((sum, f) => sum + f.text.length, 0)
      return {
        observed: joined(
          `${exitText(ran)}`,
          `${written.length} files checked`,
          `server log ${logs.length ? `${(logBytes / 1024).toFixed(0)} KB` : 'MISSING'}`,
          `${leaks.length ? `LEAKS: ${leaks.join('; ')}` : 'no secret found'}`,
        ),
        held: ran.rc === 0 && logs.length > 0 && logBytes > 0 && leaks.length === 0,
      }
    },
  },
  {
    id: 'memory-20k-requests',
    family: 'resources',
    does: "20,000 requests against the simulator (concurrency 16), each process's resident memory sampled every 250 ms",
    expects:
      "exit 0; the largest process's peak in the last half of the run within 15 % of the first half's (levels off)",
    alone: true,
    limitMs: 300_000,
    run: async (row) => {
      row.write({
        'vitest.config.mts': configFile(),
        'benches/a.bench.ts': benchFile([
          [
            'many',
            benchOptions(20_000, {
              server: fastSim('speedFactor: 0.2'),
              load: '{ concurrency: 16, requests: 20_000 }',
              baseline: 'false',
              timeoutMs: '600_000',
            }),
          ],
        ]),
      })
      const child = row.start([], { timeoutMs: 280_000 })
      const samples: Array<{ at: number; mb: number }> = []
      let done = false
      void child.done.then(() => (done = true))
      while (!done) {
        const biggest = Math.max(0, ...processesOf(row.marker, row.dir, row.ctx.hogs).map((p) => rssMb(p.pid)))
        samples.push({ at: child.elapsedMs(), mb: biggest })
        await sleep(250)
      }
      const ran = await child.done
      row.log('vitest bench (20,000 requests)', ran)
      // The measured part: from the first sample over 100 MB (the load running) to the end.
      const load = samples.filter((s) => s.mb > 0)
      const half = Math.floor(load.length / 2)
      const firstPeak = Math.max(0, ...load.slice(0, half).map((s) => s.mb))
      const secondPeak = Math.max(0, ...load.slice(half).map((s) => s.mb))
      const peak = Math.max(firstPeak, secondPeak)
      return {
        observed: joined(
          `${exitText(ran)}`,
          `${quote(ran.output, /requests completed/)}`,
          `peak RSS ${peak.toFixed(0)} MB (first half ${firstPeak.toFixed(0)} MB, ` +
            `last half ${secondPeak.toFixed(0)} MB, ${load.length} samples)`,
        ),
        held: ran.rc === 0 && load.length >= 8 && secondPeak <= firstPeak * 1.15,
      }
    },
  },
  {
    id: 'reports-unwritable',
    family: 'reports',
    does: 'JSON, Markdown, CSV and HTML reporters with llm-bench-report/ bind-mounted read-only',
    expects: 'exit 1; one line per reporter naming its file; no Node stack',
    run: async (row) => {
      row.write({
        'vitest.config.mts': configFile(['json', 'markdown', 'csv', 'html']),
        'benches/a.bench.ts': benchFile([['a1', benchOptions(8, { baseline: 'false' })]]),
        'llm-bench-report/.keep': '',
      })
      const folder = row.path('llm-bench-report')
      const error = mount(['--bind', folder, folder]) ?? mount(['-o', 'remount,ro,bind', folder])
      if (error) return { observed: `could not mount: ${error}`, held: false }
      try {
        const ran = await row.bench([])
        const files = ['results.json', 'summary.md', 'results.csv', 'report.html']
        const lines = files.map(
          (f) =>
            ran.output.split('\n').filter((l) => l.includes(f) && /EROFS|read-only|cannot|could not/i.test(l)).length,
        )
        const stack = hasNodeStack(ran.output)
        return {
          observed: joined(
            `${exitText(ran)}`,
            `lines per reporter ${files.map((f, i) => `${f} ${lines[i]}`).join(', ')}`,
            `${quote(ran.output, /results\.json.*(EROFS|read-only)/i)}`,
            `Node stack ${stack ? 'PRINTED' : 'none'}`,
          ),
          held: ran.rc === 1 && lines.every((n) => n === 1) && !stack,
        }
      } finally {
        unmountUnder(folder)
      }
    },
  },
  {
    id: 'concurrent-runs-reports',
    family: 'reports',
    does: 'two `npx vitest bench` runs at once in one project (benches/x and benches/y, 400 requests each)',
    expects: 'both benches in some results.json afterwards, or one run refused with a message naming the other',
    run: async (row) => {
      row.write({
        'vitest.config.mts': configFile(),
        'benches/x.bench.ts': benchFile([
          ['bench of run x', benchOptions(400, { baseline: 'false', server: fastSim('speedFactor: 3') })],
        ]),
        'benches/y.bench.ts': benchFile([
          ['bench of run y', benchOptions(400, { baseline: 'false', server: fastSim('speedFactor: 3') })],
        ]),
      })
      const x = row.start(['benches/x.bench.ts'])
      await sleep(300)
      const y = row.start(['benches/y.bench.ts'])
      const [rx, ry] = await Promise.all([x.done, y.done])
      row.log('vitest bench x', rx)
      row.log('vitest bench y', ry)
      const reports = row.reports()
      const names = new Set(reports.flatMap((r) => reportedBenches(r.text).map((b) => b.name)))
      const both = names.has('bench of run x') && names.has('bench of run y')
      const refusal = /another (vitest bench )?run|already (running|in use|being written)|in use by/i
      const refused = [rx, ry].find((r) => r.rc !== 0 && refusal.test(r.output))
      return {
        observed: joined(
          `exits ${rx.rc}/${ry.rc}`,
          `${reports.length} results.json (${reports.map((r) => r.path.replace(row.dir, '.')).join(', ')})`,
          `holding [${[...names].join(', ')}]`,
          ...(refused ? [`refused: ${quote(refused.output, refusal)}`] : []),
          `${describeLeft(await row.left())}`,
        ),
        held: (both && rx.rc === 0 && ry.rc === 0) || (refused !== undefined && [rx, ry].some((r) => r.rc === 0)),
      }
    },
  },
]
