import { expect, it } from 'vitest'
import type { TestProject } from 'vitest/node'
import setup from '../../src/vitest/global-setup.ts'
import { PROVIDED_KEY, type LlmBenchProvided } from '../../src/bench/provided.ts'

function fakeProject(): { project: TestProject; provided: () => LlmBenchProvided | undefined } {
  let provided: LlmBenchProvided | undefined
  const project = {
    getProvidedContext: () => ({}),
    provide: (key: string, value: LlmBenchProvided) => {
      if (key === PROVIDED_KEY) provided = value
    },
  }
  return { project: project as unknown as TestProject, provided: () => provided }
}

const answers = async (url: string): Promise<boolean> =>
  fetch(`${url}/v1/models`, { headers: { connection: 'close' } }).then(
    (response) => response.ok,
    () => false,
  )

it('starts the shared server once when Vitest runs the setup twice, and stops it after the last teardown', async () => {
  // The busy-machine line is not under test here (it watches the machine for 500 ms).
  ;(globalThis as Record<symbol, unknown>)[Symbol.for('vitest-llm-bench.busy-machine-said')] = true
  const first = fakeProject()
  const second = fakeProject()
  const [stopFirst, stopSecond] = await Promise.all([setup(first.project), setup(second.project)])
  const url = first.provided()?.serverUrl
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+/)
  expect(second.provided()?.serverUrl).toBe(url)
  expect(second.provided()?.server?.name).toBe(first.provided()?.server?.name)

  await stopFirst()
  await stopFirst()
  expect(await answers(url!)).toBe(true)
  await stopSecond()
  expect(await answers(url!)).toBe(false)

  // A later run (watch mode) starts a server of its own.
  const third = fakeProject()
  const stopThird = await setup(third.project)
  expect(await answers(third.provided()!.serverUrl!)).toBe(true)
  await stopThird()
})
