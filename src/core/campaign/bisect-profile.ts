import type { CampaignProfile } from './campaign-driver.ts'

/** What one step of a bisection says of a commit. */
export type BisectOutcome = 'good' | 'bad' | 'undecided' | 'skipped'

/** The commits a bisection asks about, and what it found. */
export interface BisectOrder {
  /** The index of the next commit to judge, or undefined when there is none left to ask about. */
  next(): number | undefined
  /** What judging commit `index` said. */
  answer(index: number, outcome: BisectOutcome): void
  /**
   * The first bad commit's index when the change is narrowed to one commit; else the indices it is among
   * (every commit after the last good one up to the first bad one, the ones that could not be judged included).
   */
  found(): { culprit?: number; range: number[] }
}

/**
 * Binary search over `count` commits, oldest first, the last of which is bad and the one before the first good:
 * each answer halves the range, a commit that is skipped or undecided is set aside and the one nearest the middle
 * of what is left asked instead (as `git bisect skip`).
 */
export function bisectOrder(count: number): BisectOrder {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`a bisection needs at least one commit, got ${count}`)
  let lo = -1
  let hi = count - 1
  const setAside = new Set<number>()
  return {
    next() {
      const mid = Math.floor((lo + hi) / 2)
      for (let d = 0; d <= hi - lo; d++) {
        for (const i of d === 0 ? [mid] : [mid + d, mid - d]) {
          if (i > lo && i < hi && !setAside.has(i)) return i
        }
      }
      return undefined
    },
    answer(index, outcome) {
      if (index <= lo || index >= hi) throw new RangeError(`commit ${index} is outside the range (${lo}, ${hi})`)
      if (outcome === 'bad') hi = index
      else if (outcome === 'good') lo = index
      else setAside.add(index)
    },
    found() {
      const range = Array.from({ length: hi - lo }, (_, i) => lo + 1 + i)
      return hi - lo === 1 ? { culprit: hi, range } : { range }
    },
  }
}

/** What a measured step of a bisection said of the commit it judged. */
export interface BisectAnswer {
  /** The commit's index in the range, oldest first. */
  index: number
  outcome: BisectOutcome
}

/** The order of a bisection over `count` commits with these answers given, in the order they were measured. */
export function bisectOrderAfter(count: number, answers: readonly BisectAnswer[]): BisectOrder {
  const order = bisectOrder(count)
  for (const { index, outcome } of answers) order.answer(index, outcome)
  return order
}

/**
 * A bisection as a profile of the campaign driver: each step is the index of the commit to judge next, chosen from
 * the answers of the steps measured so far; it stops when no commit is left to ask about (then
 * `bisectOrderAfter(count, measured).found()` says what was found).
 */
export function bisectProfile<M extends BisectAnswer>(count: number): CampaignProfile<number, M, undefined> {
  return {
    next({ measured }) {
      const index = bisectOrderAfter(count, measured).next()
      if (index === undefined) return { stop: 'no commit is left to judge' }
      return { step: index, why: `commit ${index + 1} of ${count}` }
    },
  }
}
