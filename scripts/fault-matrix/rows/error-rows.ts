// Errors from the server count on any machine: 5 % HTTP 429, HTTP 500, dropped streams or error events in HTTP-200
// streams must fail the bench (exit 1), with or without hogs beside it, and `-u` under such a fault writes nothing.
import { benchFile, benchOptions, configFile, fastSim } from '../fixtures.ts'
import { exitText, joined, quote } from './observe.ts'
import type { Row } from './row.ts'

const FAILED = /\d+ of 400 requests failed/

/** A row whose simulator injects `faults` into 5 % of 400 requests. */
function faultRow(id: string, does: string, faults: string): Row {
  return {
    id,
    family: 'server errors',
    does: `400 requests, ${does}`,
    expects: 'exit 1, "N of 400 requests failed", no ✓',
    alone: true,
    run: async (row) => {
      row.write({
        'vitest.config.mts': configFile(),
        'benches/a.bench.ts': benchFile([
          ['faulty', benchOptions(400, { server: fastSim(`faults: ${faults}`), baseline: 'false' })],
        ]),
      })
      const ran = await row.bench([])
      return {
        observed: `${exitText(ran)}; ${quote(ran.output, FAILED)}`,
        held: ran.rc === 1 && FAILED.test(ran.output) && !/✓\s+faulty/.test(ran.output),
      }
    },
  }
}

export const errorRows: Row[] = [
  faultRow('errors-http-429', '5 % answered HTTP 429', '{ httpErrorRate: 0.05, httpErrorStatus: 429 }'),
  faultRow('errors-http-500', '5 % answered HTTP 500', '{ httpErrorRate: 0.05, httpErrorStatus: 500 }'),
  faultRow('errors-dropped-streams', '5 % of streams dropped mid-way', '{ dropConnectionRate: 0.05 }'),
  faultRow('errors-error-events', '5 % get an error event in an HTTP-200 stream', '{ errorEventRate: 0.05 }'),
  {
    id: 'errors-update-writes-nothing',
    family: 'server errors',
    does: '`-u` on 400 requests with 5 % HTTP 500 and no baseline yet',
    expects: 'exit 1, no baseline file written',
    alone: true,
    run: async (row) => {
      row.write({
        'vitest.config.mts': configFile(),
        'benches/a.bench.ts': benchFile([
          ['faulty', benchOptions(400, { server: fastSim('faults: { httpErrorRate: 0.05, httpErrorStatus: 500 }') })],
        ]),
      })
      const ran = await row.bench(['-u'])
      const file = row.sha('benches/__llm_baselines__/a.bench.ts.json')
      return {
        observed: joined(
          `${exitText(ran)}`,
          `${quote(ran.output, FAILED)}`,
          `baseline file ${file === 'absent' ? 'absent' : `WRITTEN (${file})`}`,
        ),
        held: ran.rc === 1 && file === 'absent',
      }
    },
  },
]
