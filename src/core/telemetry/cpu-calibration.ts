/** Runs of the calibration loop; the median is reported. */
const RUNS = 5
/** The loop's working set: 4 MiB, beyond most L2 caches, so memory speed counts as a server's does. */
const WORDS = 1 << 19
/** Passes over the working set per run (about 40 ms per run on the 2-core development machine). */
const PASSES = 4

/**
 * Times a fixed piece of work (a dependent floating-point pass over 4 MiB, 5 runs, the median),
 * in milliseconds: how fast this machine is now. A server sharing the machine slows down with it
 * (a throttled or shared host, a noisy neighbour), which no steal counter shows: on the 2-core
 * development machine, llama-server ran 25 % slower for minutes with steal near 0. Comparing this
 * figure with the baseline's tells such a machine from a regression. It does not see every such
 * move: measured on the client's core, it stayed at 32-37 ms while llama-server on the other core
 * ran 1.68x slower for 40 s (perf/llama-speed-phases.ts, 2026-12-07); only measuring both arms side
 * by side cancels that. Cost: about 0.2 s.
 */
export function calibrateCpu(): number {
  const words = new Float64Array(WORDS)
  const times: number[] = []
  let x = 1
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now()
    for (let pass = 0; pass < PASSES; pass++) {
      for (let i = 0; i < WORDS; i++) {
        x = (x * 1.0000001 + (words[i] as number)) % 1e9
        words[i] = x
      }
    }
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  // The result feeds nothing, but must not be optimised away.
  if (x < 0) throw new Error('unreachable')
  return times[Math.floor(RUNS / 2)] as number
}
