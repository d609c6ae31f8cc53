import net from 'node:net'

/** A TCP port that is free on `host` now (the OS picks it). Another process may take it before the server binds it. */
export function getFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.unref()
    probe.once('error', reject)
    probe.listen({ port: 0, host, exclusive: true }, () => {
      const address = probe.address()
      const port = typeof address === 'object' && address !== null ? address.port : undefined
      probe.close(() => (port === undefined ? reject(new Error('The OS gave no port')) : resolve(port)))
    })
  })
}

/** True when nothing listens on `host:port` (so a server we start there is the one we talk to). */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer()
    probe.unref()
    probe.once('error', () => resolve(false))
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)))
  })
}
