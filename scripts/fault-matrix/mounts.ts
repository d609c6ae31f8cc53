// Mounts the disk rows make (a small tmpfs, a read-only bind mount), and their removal.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

// util-linux programs, not npm binaries: named through constants, which knip does not take for package binaries.
const MOUNT = 'mount'
const UMOUNT = 'umount'

/** Runs `program args` (util-linux's mount or umount); the error text when it failed, else undefined. */
function system(program: string, args: string[]): string | undefined {
  const ran = spawnSync(program, args, { encoding: 'utf8' })
  return ran.status === 0 ? undefined : `${ran.stderr || ran.stdout || ran.error?.message || 'mount failed'}`.trim()
}

/** Runs `mount args`; the error text when it failed, else undefined. */
export const mount = (args: string[]): string | undefined => system(MOUNT, args)

/** Unmounts every mount point under `dir`, deepest first (lazily, so a busy one goes too). */
export function unmountUnder(dir: string): void {
  let points: string[] = []
  try {
    points = readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .map((line) => line.split(' ')[1] ?? '')
      .filter((point) => point === dir || point.startsWith(`${dir}/`))
  } catch {
    return
  }
  for (const point of points.sort((a, b) => b.length - a.length)) system(UMOUNT, ['-l', point])
}
