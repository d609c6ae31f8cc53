import { OptionsError } from '../contract/errors.ts'
import { LOADGEN_CONFIDENCE, LOADGEN_TOLERANCE, MinPassingQueriesFinder } from '../sweep/early-stopping.ts'
import { SCENARIO_DEFAULTS, type ScenarioSpec } from './scenario-spec.ts'

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const finitePositive = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value) && value > 0
const wholePositive = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 1

const KEYS: Record<ScenarioSpec['name'], string[]> = {
  Server: ['name', 'ttftMs', 'tpotMs', 'percentile', 'rate', 'precision', 'requests', 'durationMs'],
  Offline: ['name', 'requests'],
  SingleStream: ['name', 'requests', 'durationMs', 'percentile'],
}

/** Checks a scenario preset; throws {@link OptionsError} naming the field. Rate bounds are checked by the capacity search. */
export function validateScenario(spec: ScenarioSpec, option = 'scenario'): void {
  if (!isObject(spec))
    throw new OptionsError(
      option,
      'must be an object',
      'Use serverScenario({...}), offlineScenario({...}) or singleStreamScenario({...}).',
    )
  const keys = KEYS[spec.name as ScenarioSpec['name']]
  if (keys === undefined) {
    throw new OptionsError(
      `${option}.name`,
      `must be Server, Offline or SingleStream, got ${String(spec.name)}`,
      'Use one of the scenario presets.',
    )
  }
  for (const key of Object.keys(spec)) {
    if (!keys.includes(key))
      throw new OptionsError(
        `${option}.${key}`,
        `is not an option of the ${spec.name} scenario`,
        `Use: ${keys.slice(1).join(', ')}.`,
      )
  }
  const fields = spec as unknown as Record<string, unknown>
  if (fields.requests !== undefined && !wholePositive(fields.requests)) {
    throw new OptionsError(
      `${option}.requests`,
      `must be a whole number >= 1, got ${String(fields.requests)}`,
      'Give the number of measured requests.',
    )
  }
  if (fields.durationMs !== undefined && !finitePositive(fields.durationMs)) {
    throw new OptionsError(
      `${option}.durationMs`,
      `must be a finite number of milliseconds > 0, got ${String(fields.durationMs)}`,
      'Use e.g. 60000.',
    )
  }
  if (
    fields.percentile !== undefined &&
    !(typeof fields.percentile === 'number' && fields.percentile > 0 && fields.percentile < 1)
  ) {
    throw new OptionsError(
      `${option}.percentile`,
      `must be a share between 0 and 1 (exclusive), got ${String(fields.percentile)}`,
      'Use 0.9 for the 90th percentile.',
    )
  }
  if (spec.name === 'Server') {
    for (const key of ['ttftMs', 'tpotMs'] as const) {
      if (!finitePositive(spec[key]))
        throw new OptionsError(
          `${option}.${key}`,
          `must be a number of milliseconds > 0, got ${String(spec[key])}`,
          'The Server scenario needs both a TTFT and a TPOT limit.',
        )
    }
  }
  if (spec.name !== 'Offline' && typeof fields.requests === 'number') {
    // Fewer requests than LoadGen's early stopping needs with none over the limit can never be VALID
    // (Server) or give an estimate (SingleStream): a search would only bisect down to its slowest rates.
    const percentile =
      (fields.percentile as number | undefined) ??
      (spec.name === 'Server' ? SCENARIO_DEFAULTS.serverPercentile : SCENARIO_DEFAULTS.singleStreamPercentile)
    // Server: h(0), with no query over a limit; SingleStream: h(1) + 1, LoadGen's least for an estimate.
    const finder = new MinPassingQueriesFinder()
    const needed =
      spec.name === 'Server'
        ? finder.find(0, percentile, LOADGEN_TOLERANCE, LOADGEN_CONFIDENCE)
        : finder.find(1, percentile, LOADGEN_TOLERANCE, LOADGEN_CONFIDENCE) + 1
    if (fields.requests < needed) {
      const what =
        spec.name === 'Server'
          ? `a VALID Server run at the ${percentile * 100}th percentile (LoadGen's early stopping, none over the limits)`
          : `an early-stopping estimate of the ${percentile * 100}th percentile`
      const fallback =
        spec.name === 'Server' ? SCENARIO_DEFAULTS.serverRequests : SCENARIO_DEFAULTS.singleStreamRequests
      throw new OptionsError(
        `${option}.requests`,
        `is ${fields.requests}, fewer than the ${needed} requests ${what} needs`,
        `Give at least ${needed} (the default, ${fallback}, ${spec.name === 'Server' ? 'also allows one request over a limit' : 'is the least'}), or leave it out.`,
      )
    }
  }
  if (spec.name === 'Offline' && !wholePositive(spec.requests)) {
    throw new OptionsError(
      `${option}.requests`,
      `must be a whole number >= 1, got ${String(spec.requests)}`,
      'Give the number of requests sent at once.',
    )
  }
}
