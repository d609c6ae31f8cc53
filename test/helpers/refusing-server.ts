import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A server that lists one model (so it reads as ready) and answers every POST with one refusal. */
export interface RefusingServer {
  baseUrl: string
  /** POST requests it received. */
  readonly posts: number
  close(): Promise<void>
}

/**
 * Starts a server that answers `GET /v1/models` with model `m`, every POST with `status` and the JSON
 * `body`, and anything else with 404: a server that does not serve the API a run asks for.
 */
export async function startRefusingServer(status: number, body: unknown): Promise<RefusingServer> {
  let posts = 0
  const server = createServer((req, res) => {
    req.resume()
    if (req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }))
      return
    }
    if (req.method !== 'POST') {
      res.writeHead(404).end()
      return
    }
    posts++
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get posts() {
      return posts
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
