/**
 * Pairing in time on synthetic data with a known truth (test/helpers/duet-simulation.ts): a host whose speed
 * moves in phases of about 30 s in a 1.65x range, each arm's launch effect, 4 % noise per slice; paired verdicts
 * through the campaign driver and the judge, arms together (four 1.5 s slices, A B B A) against apart (whole
 * runs 16 s apart). Prints, per launch-effect sd: the A/A pass and fail rates, the fail rate of a variant exactly
 * at a +10 % gate's limit (nominal 2.5 %), and how often a 5 % change is found within 12 pairs. The table in
 * docs/verdicts.md, "Arms together", is this script's output.
 *
 *   npm exec -- node perf/duet-synthetic.ts [--campaigns 1000]
 */
import { parseArgs } from 'node:util'
import { rates, type Truth } from '../test/helpers/duet-simulation.ts'

const { values } = parseArgs({ options: { campaigns: { type: 'string', default: '1000' } } })
const campaigns = Number(values.campaigns)
const percent = (x: number) => `${(x * 100).toFixed(1)} %`
console.log('launch sd | arms                      | A/A pass | A/A fail | at the limit: fail | 5 % found (12 pairs)')
for (const launchSd of [0, 0.02, 0.05]) {
  const base = { launchSd, sliceSd: 0.04, tolerance: 0.1 }
  const series: [string, Partial<Truth> & Pick<Truth, 'arms'>][] = [
    ['together', { arms: 'together' }],
    ['together, pairs alone', { arms: 'together', slicesJudged: false }],
    ['apart', { arms: 'apart' }],
  ]
  for (const [label, arms] of series) {
    const aa = await rates({ ...base, ...arms, logRatio: 0 }, campaigns, 11)
    const limit = await rates({ ...base, ...arms, logRatio: Math.log1p(0.1) }, campaigns * 2, 12)
    const five = await rates(
      { ...base, ...arms, tolerance: 0, maxPairs: 12, logRatio: Math.log(1.05) },
      campaigns / 2,
      13,
    )
    console.log(
      `${percent(launchSd).padStart(9)} | ${label.padEnd(25)} | ${percent(aa.pass).padStart(8)} | ${percent(aa.fail).padStart(8)} | ${percent(limit.fail).padStart(18)} | ${percent(five.found)}`,
    )
  }
}
