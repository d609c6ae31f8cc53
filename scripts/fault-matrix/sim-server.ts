// The simulator as a server of its own (the packed CLI, `npx vitest-llm-bench sim`), for rows that must prove
// that a run sent nothing: a bench connects to it and the row reads how many requests it served from /metrics.
import { createServer } from 'node:net'
import type { RowRun } from './rows/row.ts'
import type { Child } from './child-run.ts'

/** What a simulator served, from its /metrics. */
export interface Served {
  /** `vllm:request_success_total`, every finish reason. */
  completed: number
  /** `vllm:prompt_tokens_total`. */
  promptTokens: number
}

/** A running simulator process. */
export interface SimServer {
  url: string
  pid: number
  /** What it served so far: requests completed and prompt tokens of requests that got a first token. */
  served(): Promise<Served>
  stop(): Promise<void>
}

/** A port free on 127.0.0.1 at this moment. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

/** Sum of the samples of every `name` series (labels ignored) in a Prometheus text. */
function sumOf(text: string, name: string): number {
  let sum = 0
  for (const line of text.split('\n'))
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.split(' ').pop())
  return sum
}

/** Starts `npx vitest-llm-bench sim` in the row's folder and waits until it answers. */
export async function startSimServer(row: RowRun, flags: string[] = []): Promise<SimServer> {
  const port = await freePort()
  const child: Child = row.spawn(
    'npx',
    ['vitest-llm-bench', 'sim', '--port', String(port), '--speed', '0.2', ...flags],
    {
      timeoutMs: 300_000,
    },
  )
  const url = `http://127.0.0.1:${port}`
  const deadline = performance.now() + 30_000
  for (;;) {
    try {
      if ((await fetch(`${url}/v1/models`)).ok) break
    } catch {
      // Not listening yet.
    }
    if (performance.now() > deadline) throw new Error(`the simulator did not start: ${child.output().slice(-300)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    url,
    pid: child.pid,
    served: async () => {
      const text = await (await fetch(`${url}/metrics`)).text()
      return {
        completed: sumOf(text, 'vllm:request_success_total'),
        promptTokens: sumOf(text, 'vllm:prompt_tokens_total'),
      }
    },
    stop: async () => {
      child.signalGroup('SIGTERM')
      await child.done
    },
  }
}
