/**
 * Which processes on this machine are the run's server, so that the host-load watch counts the rest as other work:
 * a launched server's process group; a local server the bench did not launch, found by its listening port; none for
 * the in-process simulator or a remote server.
 */
import { listenerOf, processGroupOf } from './port-owner.ts'
import type { startHostLoad } from './host-load.ts'

/** What the host-load watch is told of the run's server. */
export type HostLoadOptions = NonNullable<Parameters<typeof startHostLoad>[0]>

/** Where the run's server runs, as the run knows it. */
export interface RunServerPlace {
  /** The server's root URL. */
  baseUrl: string
  /** Process group of a server launched on this machine. */
  serverPgid?: number
  /** True when the server is the simulator in this process. */
  inProcess: boolean
}

/** The TCP port of `baseUrl`: its own, else 443 for https and 80 for http. */
function portOf(baseUrl: string): number {
  const url = new URL(baseUrl)
  return url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80
}

/** A target on this machine that the bench did not launch: found by its port, or its CPU use is not told from others. */
export function isLocalHost(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname
    return host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host === '::1' || host === '0.0.0.0'
  } catch {
    return false
  }
}

/**
 * The host-load watch's view of the run's server, looked up now (just before the load: a server found by its port
 * is the one serving it). A local server the bench did not launch is its process alone where its group is this
 * run's own (a server started in the same job, or in this process), else its group.
 */
export function hostLoadOptionsFor(place: RunServerPlace): HostLoadOptions {
  const local = place.serverPgid === undefined && !place.inProcess && isLocalHost(place.baseUrl)
  const listener = local ? listenerOf(portOf(place.baseUrl)) : undefined
  const sharesOurGroup = listener !== undefined && listener.pgid === processGroupOf(process.pid)
  return {
    ...(place.serverPgid !== undefined ? { serverPgid: place.serverPgid } : {}),
    ...(listener && !sharesOurGroup ? { serverPgid: listener.pgid } : {}),
    ...(listener && sharesOurGroup ? { serverPid: listener.pid } : {}),
    localUnknownServer: local && listener === undefined,
  }
}
