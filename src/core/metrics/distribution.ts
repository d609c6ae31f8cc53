import type { Histogram } from 'hdr-histogram-js'
import type { MetricSummary } from '../contract/result.ts'
import { createHistogram, decodeHistogram, encodeHistogram } from './histogram.ts'
import { emptySummary, histogramPercentiles } from './summarize-histogram.ts'

/** A {@link Distribution} as plain JSON (for transfer between threads). */
export interface DistributionSnapshot {
  count: number
  /** Exact mean, in the distribution's unit (ms or tokens). */
  mean: number
  /** Sum of squared deviations from the mean (Welford's M2), in the unit squared. */
  sumSquaredDeviations: number
  min: number
  max: number
  /** The histogram, compressed base64; absent when count is 0. */
  histogram?: string
}

/**
 * One metric's values without keeping them: a histogram for percentiles plus exact running
 * count, min, max, mean and population variance (Welford; merged with Chan et al.'s formula).
 *
 * Values are given in the reported unit (milliseconds or tokens); the histogram stores
 * `Math.round(value * unitsPerValue)` (microseconds for latencies) because hdr records integers.
 */
export class Distribution {
  readonly unitsPerValue: number
  readonly histogram: Histogram
  count = 0
  mean = 0
  sumSquaredDeviations = 0
  min = Number.POSITIVE_INFINITY
  max = Number.NEGATIVE_INFINITY

  /**
   * @param unitsPerValue Histogram units per reported unit: 1000 to record milliseconds as microseconds, 1 for token counts.
   * @param highestTrackableValue Initial top of the histogram, in histogram units (it grows on demand).
   * @param histogram An existing histogram to adopt (decoded from a snapshot).
   */
  constructor(unitsPerValue: number, highestTrackableValue: number, histogram?: Histogram) {
    this.unitsPerValue = unitsPerValue
    this.histogram = histogram ?? createHistogram(highestTrackableValue)
  }

  /** Adds one finite, non-negative value in the reported unit. */
  record(value: number): void {
    this.histogram.recordValue(Math.round(value * this.unitsPerValue))
    this.count += 1
    const delta = value - this.mean
    this.mean += delta / this.count
    this.sumSquaredDeviations += delta * (value - this.mean)
    if (value < this.min) this.min = value
    if (value > this.max) this.max = value
  }

  /** Adds every value of `other` (same `unitsPerValue`); the histogram adds bucket by bucket, exactly. */
  merge(other: Distribution): void {
    if (other.count === 0) return
    this.histogram.add(other.histogram)
    const count = this.count + other.count
    const delta = other.mean - this.mean
    this.mean += (delta * other.count) / count
    this.sumSquaredDeviations += other.sumSquaredDeviations + (delta * delta * this.count * other.count) / count
    this.count = count
    this.min = Math.min(this.min, other.min)
    this.max = Math.max(this.max, other.max)
  }

  /**
   * Exact count, min, max, mean and population stddev (divides by n, as numpy's `np.std` that vLLM
   * uses); percentiles from the histogram (see `histogramPercentiles` for how they compare with numpy).
   */
  summary(): MetricSummary {
    if (this.count === 0) return emptySummary()
    return {
      count: this.count,
      min: this.min,
      max: this.max,
      mean: this.mean,
      stddev: Math.sqrt(Math.max(0, this.sumSquaredDeviations) / this.count),
      ...histogramPercentiles(this.histogram, this.unitsPerValue, this.min, this.max),
    }
  }

  /** The histogram as compressed base64, or undefined when empty. */
  encodedHistogram(): string | undefined {
    return this.count === 0 ? undefined : encodeHistogram(this.histogram)
  }

  toJSON(): DistributionSnapshot {
    const histogram = this.encodedHistogram()
    return {
      count: this.count,
      mean: this.mean,
      sumSquaredDeviations: this.sumSquaredDeviations,
      // Infinity is not JSON; an empty distribution carries zeros and is restored from count.
      min: this.count === 0 ? 0 : this.min,
      max: this.count === 0 ? 0 : this.max,
      ...(histogram === undefined ? {} : { histogram }),
    }
  }

  static fromJSON(snapshot: DistributionSnapshot, unitsPerValue: number, highestTrackableValue: number): Distribution {
    const histogram = snapshot.histogram === undefined ? undefined : decodeHistogram(snapshot.histogram)
    const distribution = new Distribution(unitsPerValue, highestTrackableValue, histogram)
    if (snapshot.count > 0) {
      distribution.count = snapshot.count
      distribution.mean = snapshot.mean
      distribution.sumSquaredDeviations = snapshot.sumSquaredDeviations
      distribution.min = snapshot.min
      distribution.max = snapshot.max
    }
    return distribution
  }

  /** Bytes this distribution holds (hdr's conservative estimate plus the running fields); constant unless the histogram resizes. */
  get estimatedFootprintInBytes(): number {
    return this.histogram.estimatedFootprintInBytes + 6 * 8
  }
}
