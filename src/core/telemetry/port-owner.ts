import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { procStatFields } from '../platform/proc-stat.ts'

/** Inodes of the sockets listening on `port` (any local address), from `/proc/net/tcp` and `/proc/net/tcp6`. */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>()
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0')
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string
    try {
      text = readFileSync(table, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/)
      // local_address is ADDR:PORT in hex; state 0A is LISTEN; the inode is field 10.
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A' && fields[9] && fields[9] !== '0')
        inodes.add(fields[9])
    }
  }
  return inodes
}

/** The process group of process `pid`, from `/proc/<pid>/stat`; undefined where it cannot be read. */
export function processGroupOf(pid: number): number | undefined {
  const pgrp = procStatFields(pid)?.[2]
  return pgrp === undefined ? undefined : Number(pgrp)
}

/**
 * The process listening on TCP `port` on this machine and its process group (a server the bench did not launch,
 * such as a llama-server started by hand), found through `/proc`; undefined where it cannot be told (not Linux,
 * another user's process, nothing listening). This process when the server runs in it (the simulator).
 */
export function listenerOf(port: number): { pid: number; pgid: number } | undefined {
  const inodes = listeningInodes(port)
  if (inodes.size === 0) return undefined
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))
  } catch {
    return undefined
  }
  for (const pid of pids) {
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      let target: string
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`)
      } catch {
        continue
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
      if (inode === undefined || !inodes.has(inode)) continue
      const pgid = processGroupOf(Number(pid))
      return pgid === undefined ? undefined : { pid: Number(pid), pgid }
    }
  }
  return undefined
}
