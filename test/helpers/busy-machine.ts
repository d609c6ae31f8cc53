/**
 * A slowed server must fail against a stored baseline, except on a disturbed machine, where the
 * verdict turns every fail into inconclusive and names the disturbance (by design: a CI host with
 * 5-13 % steal for the whole job cannot tell a slower server from a slower machine). Tests that
 * assert a fail accept that instead, and assert that the disturbance was named.
 */
// As the verdict's note ("The machine was disturbed … (X): failures are reported as inconclusive") or an
// inconclusive check's reason on the console ("… measured (X); …").
const DISTURBED = /the machine was disturbed while this run measured \((.+?)\)(?=[:;]|$)/im

/** What disturbed the run, when `text` is a verdict that could not fail because of it; else undefined. */
export function disturbanceNamed(text: string): string | undefined {
  return DISTURBED.exec(text)?.[1]
}
