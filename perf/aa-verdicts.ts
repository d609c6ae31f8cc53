// A/A check of the regression verdict against the built-in simulator: one baseline, then N runs
// of the same configuration (no run may fail), then N runs with every modeled delay 30 % slower
// (nearly all must fail). Prints both rates with their sample sizes. A run whose client could not
// keep up (CPU starvation on a loaded machine makes the verdict inconclusive by design) is
// measured again, up to 5 attempts, and the count of such repeats is printed.
// Run: npm exec -- node perf/aa-verdicts.ts   (AA_RUNS=20 AA_REQUESTS=60 AA_SLOWDOWN=1.3 to change)
import { realpathSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { formatVerdict } from '../src/core/verdict/index.ts'
import { AA_SIMULATOR, runAaExperiment, tally } from '../test/helpers/aa-experiment.ts'

async function main(): Promise<void> {
  const runs = Number(process.env.AA_RUNS ?? 20)
  const requests = Number(process.env.AA_REQUESTS ?? 60)
  const slowdown = Number(process.env.AA_SLOWDOWN ?? 1.3)
  const started = performance.now()
  const outcome = await runAaExperiment({
    runs,
    requests,
    slowdown,
    onRun(arm, index, verdict, attempts) {
      const check = verdict.checks[0]
      const ratio = check?.ratio?.toFixed(3) ?? '-'
      const ci =
        check && check.ciLow !== null && check.ciHigh !== null
          ? `[${check.ciLow.toFixed(3)}, ${check.ciHigh.toFixed(3)}]`
          : '-'
      console.log(
        `${arm === 'aa' ? 'A/A ' : 'slow'} #${String(index + 1).padStart(2)}  ttftMs p50 ${check?.baseline.toFixed(2)} -> ${check?.current.toFixed(2)} ms  ratio ${ratio}  CI ${ci}  ${verdict.status}${attempts > 1 ? `  (attempt ${attempts}: the client could not keep up before)` : ''}${verdict.notes.length > 0 ? `  [${verdict.notes.join(' ')}]` : ''}`,
      )
    },
  })
  const aa = tally(outcome.aa)
  const slow = tally(outcome.slow)
  const last = outcome.slow.at(-1)
  if (last) console.log(`\nLast slowed verdict:\n${formatVerdict(last)}`)
  console.log(
    `\npolicy ${JSON.stringify(outcome.policy)}; ${requests} measured requests per run (baseline n = ${outcome.baselineSamples}); simulator ${JSON.stringify(AA_SIMULATOR)}`,
  )
  console.log(
    `A/A (speed 1):        ${aa.fail} fail of ${runs} runs (${aa.pass} pass, ${aa.inconclusive} inconclusive; ${outcome.repeated.aa} re-measured: client starved)`,
  )
  console.log(
    `slowed (speed ${slowdown}):   ${slow.fail} fail of ${runs} runs (${slow.pass} pass, ${slow.inconclusive} inconclusive; ${outcome.repeated.slow} re-measured: client starved)`,
  )
  console.log(
    `took ${((performance.now() - started) / 1000).toFixed(1)} s; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${availableParallelism()} cores`,
  )
  if (aa.fail > 0 || slow.fail < runs - 1) process.exitCode = 1
}

// Runs when executed as a script; the integration test imports runAaExperiment instead.
if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main()
}
