import { describe, expect, test } from 'vitest'
import { OptionsError } from '../../src/core/contract/errors.ts'
import { resolveSimulatorOptions } from '../../src/sim/options.ts'

describe('resolveSimulatorOptions', () => {
  test('an unknown option fails, naming it; a fault rate beside `faults` points into it (it would inject nothing)', () => {
    expect(() => resolveSimulatorOptions({ httpErrorRate: 0.3 } as never)).toThrow(
      /^Invalid option `httpErrorRate`: is not a simulator option\. Did you mean `faults\.httpErrorRate`\? Options: port, host/,
    )
    expect(() => resolveSimulatorOptions({ speedfactor: 2 } as never)).toThrow(
      /Invalid option `speedfactor`: is not a simulator option\. Did you mean `speedFactor`\?/,
    )
    expect(() => resolveSimulatorOptions({ faults: { stallrate: 0.1 } } as never)).toThrow(
      /Invalid option `faults\.stallrate`: is not a simulator option\. Did you mean `faults\.stallRate`\?/,
    )
    expect(() => resolveSimulatorOptions({ faults: { httpErrorRate: 2 } })).toThrow(OptionsError)
    expect(resolveSimulatorOptions({ speedFactor: 2, faults: { httpErrorRate: 0.5 } })).toMatchObject({
      speedFactor: 2,
      faults: { httpErrorRate: 0.5 },
    })
  })
})
