// How often the history's change-point search (E-Divisive means, Student t-test, p < 0.001, windows
// of 50) flags a change in a series that has none, and how often it finds a real step. Series are
// seeded lognormal noise (the spread of a figure from run to run); a false rate is the share of
// series with at least one change point, with its 95 % Wilson interval.
// Run: npm exec -- node perf/history-change-points.ts   (HISTORY_SERIES=400 HISTORY_SIGMA=0.05 to change)
import { changePoints } from '../src/core/history/change-points.ts'
import { createRandom } from '../src/core/platform/random.ts'

const SERIES = Number(process.env.HISTORY_SERIES ?? 400)
const SIGMA = Number(process.env.HISTORY_SIGMA ?? 0.05)

/** 95 % Wilson score interval of `hits` out of `n`. */
function wilson(hits: number, n: number): [number, number] {
  const z = 1.959964
  const p = hits / n
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n)
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))
  return [Math.max(0, centre - half), Math.min(1, centre + half)]
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)} %`
}

/** Runs `SERIES` seeded series of `n` points (a step of `step` from point `at`, if given) and counts the hits. */
function trial(n: number, step?: { factor: number; at: number }) {
  let flagged = 0
  let atStep = 0
  let nearStep = 0
  let changes = 0
  const started = performance.now()
  for (let s = 0; s < SERIES; s++) {
    const random = createRandom(1_000_003 * n + s + (step ? 7 : 0))
    const values = Array.from(
      { length: n },
      (_, i) => 100 * Math.exp(SIGMA * random.normal()) * (step && i >= step.at ? step.factor : 1),
    )
    const found = changePoints(values)
    changes += found.length
    if (found.length > 0) flagged++
    if (step && found.some((point) => point.index === step.at)) atStep++
    if (step && found.some((point) => Math.abs(point.index - step.at) <= 1)) nearStep++
  }
  return { flagged, atStep, nearStep, changes, msPerSeries: (performance.now() - started) / SERIES }
}

console.log(`change points in seeded lognormal series, sd ${percent(SIGMA)} (log scale), ${SERIES} series each`)
console.log('no step:')
for (const n of [12, 30, 50, 100]) {
  const { flagged, changes, msPerSeries } = trial(n)
  const [low, high] = wilson(flagged, SERIES)
  console.log(
    `  ${String(n).padStart(3)} points: ${String(flagged).padStart(3)}/${SERIES} series flagged = ` +
      `${percent(flagged / SERIES)} (95 % CI ${percent(low)}-${percent(high)}), ` +
      `${changes} false change points, ${msPerSeries.toFixed(2)} ms a series`,
  )
}
console.log('a step at point 7 of 12:')
for (const factor of [1.1, 1.2]) {
  const { atStep, nearStep, flagged } = trial(12, { factor, at: 6 })
  const [low, high] = wilson(atStep, SERIES)
  console.log(
    `  +${Math.round((factor - 1) * 100)} %: found at the step in ${atStep}/${SERIES} = ${percent(atStep / SERIES)}` +
      ` (95 % CI ${percent(low)}-${percent(high)}), within one point in ${nearStep}, anywhere in ${flagged}/${SERIES}`,
  )
}
