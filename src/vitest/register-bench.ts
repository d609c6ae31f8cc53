import { expect, test, type TestContext } from 'vitest'
import { armFromEnv } from '../bench/arm-env.ts'
import { writeSkippedInArm } from '../bench/arm-file.ts'
import { assertBenchWillRun } from './vitest-support.ts'
import { LlmBenchError } from '../core/contract/errors.ts'

/** How a bench is registered: as Vitest's `test`, `test.skip` or `test.only`. */
export type BenchMode = 'run' | 'skip' | 'only'

/** Registers one bench of some kind (`bench.llm`, `bench.llm.sweep`) under `name`. */
export type BenchRegistration<Options> = (name: string, options: Options) => void

/** What a kind of bench needs to become a Vitest test. */
export interface BenchKind<Options, Plan> {
  /** Parses the options once, at collection, before any server starts, so a typo fails in milliseconds; throws when they are wrong. */
  plan(name: string, options: Options): Plan
  /** The test body, given the plan made at collection. */
  run(ctx: TestContext, options: Options, plan: Plan): Promise<void>
  /** Test timeout of a bench that sets no `timeoutMs`, milliseconds. */
  defaultTimeoutMs: number
  /** The test's whole limit from its plan (e.g. `timeoutMs` scaled by the trials it may run). Default: `timeoutMs`. */
  wholeTimeoutMs?: (plan: Plan) => number
  /**
   * Skipped in the arms of an `ab` run, which measures `bench.llm` benches only: what this kind is (`sweep`,
   * `compare`), for `ab` to list it as not compared.
   */
  skippedInArms?: string
}

/** The bench file being collected (Vitest sets it on `expect`'s state per file); '' where it does not. */
function benchFileOf(): string {
  return expect.getState().testPath ?? ''
}

/** The first frame of `stack` in `file` (the bench file calling `bench.llm`), as the stack writes it. */
function frameIn(stack: string | undefined, file: string): string | undefined {
  if (file === '') return undefined
  return (stack ?? '').split('\n').find((line) => line.trimStart().startsWith('at ') && line.includes(file))
}

/**
 * A bench's own failure (a regression, an SLO, a stopped server), pointed at where the bench was
 * declared: Vitest shows the code frame of the first stack frame outside node_modules, which would
 * otherwise be a line inside this package. Other errors keep their stack.
 */
function atDeclaration(error: unknown, declaredAt: string | undefined): unknown {
  if (declaredAt === undefined || !(error instanceof Error)) return error
  if (error.name !== 'LlmBenchAssertionError' && !(error instanceof LlmBenchError)) return error
  error.stack = `${error.name}: ${error.message}\n${declaredAt}`
  return error
}

/** `register(mode)` gives the function that registers one bench of this kind as a Vitest test in that mode. */
export function benchRegistrar<Options extends { timeoutMs?: number }, Plan>(
  kind: BenchKind<Options, Plan>,
): (mode: BenchMode) => BenchRegistration<Options> {
  return (given) => (name, options) => {
    const plan = kind.plan(name, options)
    const arm = kind.skippedInArms === undefined ? undefined : armFromEnv()
    if (arm !== undefined && kind.skippedInArms !== undefined && given !== 'skip')
      writeSkippedInArm(arm, benchFileOf(), name, kind.skippedInArms)
    const mode = arm !== undefined ? 'skip' : given
    if (mode !== 'skip') assertBenchWillRun(name)
    const perRun = options.timeoutMs ?? kind.defaultTimeoutMs
    const timeout = kind.wholeTimeoutMs ? kind.wholeTimeoutMs(plan) : perRun
    const declaredAt = frameIn(new Error().stack, benchFileOf())
    const fn = async (ctx: TestContext) => {
      // Reporters tell a bench that failed before measuring from a test that is no bench.
      ctx.task.meta.llmBenchStarted = true
      try {
        await kind.run(ctx, options, plan)
      } catch (error) {
        throw atDeclaration(error, declaredAt)
      }
    }
    if (mode === 'skip') test.skip(name, fn, timeout)
    else if (mode === 'only') test.only(name, fn, timeout)
    else test(name, fn, timeout)
  }
}
