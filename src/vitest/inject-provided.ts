import { inject } from 'vitest'
import { resolveUpdateMode } from '../core/baseline/index.ts'
import { isCI } from '../bench/ci.ts'
import { PROVIDED_KEY, type LlmBenchProvided } from '../bench/provided.ts'

/**
 * What the plugin provided to this test file; outside a Vitest worker that has the plugin, the
 * defaults it would give (write missing baselines locally, none under CI).
 */
export function injectProvided(): LlmBenchProvided {
  try {
    const value = inject(PROVIDED_KEY)
    if (value) return value
  } catch {
    // inject() throws outside a Vitest worker that has the plugin: fall through to defaults.
  }
  const ci = isCI()
  return { update: resolveUpdateMode({ update: false, ci }), ci }
}
