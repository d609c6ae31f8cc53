import { startHostLoad } from './host-load.ts'
import { selfCheckOf } from './self-check.ts'

/** How long the machine is watched before a run starts, ms. */
export const BUSY_CHECK_MS = 500

/**
 * One line for the start of a run when this machine is already busy (other processes, hypervisor steal), by the
 * self-check's own limits; undefined on a quiet machine. It says what that means for the run and what to do.
 *
 * @param windowMs How long to watch, ms.
 */
export async function busyMachineNotice(windowMs = BUSY_CHECK_MS): Promise<string | undefined> {
  // npx and `npm exec`, which start this run, are still starting up: theirs is not other work.
  const watch = startHostLoad({ withAncestors: true })
  await new Promise((resolve) => setTimeout(resolve, windowMs))
  const { disturbed } = selfCheckOf(watch.stop(), { keptUp: true })
  if (disturbed.length === 0) return undefined
  return (
    `vitest-llm-bench: this machine is busy before the run starts (${disturbed.join('; ')}). ` +
    'Baselines recorded now are provisional and a slowdown may be judged inconclusive, not failed. ' +
    'For a trusted verdict run on a quiet machine, or measure base and head side by side with `npx vitest-llm-bench ab`.'
  )
}
