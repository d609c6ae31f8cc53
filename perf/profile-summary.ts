// Summarises a V8 .cpuprofile (written by `node --cpu-prof`): self time per function and per
// package or source file, so a hot path can be read without a browser.
// Run: npm exec -- node perf/profile-summary.ts <file.cpuprofile> [top=25]
import { readFileSync } from 'node:fs'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
interface CpuProfile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
  startTime: number
  endTime: number
}

const file = process.argv[2]
if (file === undefined) {
  console.error('usage: node perf/profile-summary.ts <file.cpuprofile> [top]')
  process.exit(2)
}
const top = Number(process.argv[3] ?? 25)
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
const byId = new Map(profile.nodes.map((node) => [node.id, node]))
const selfUs = new Map<number, number>()
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i] as number
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
}
const totalUs = profile.endTime - profile.startTime
let idleUs = 0
for (const [id, us] of selfUs) if (byId.get(id)?.callFrame.functionName === '(idle)') idleUs += us
const busyUs = totalUs - idleUs

function where(url: string): string {
  if (url === '') return '(native)'
  const nm = url.lastIndexOf('node_modules/')
  if (nm >= 0)
    return url
      .slice(nm + 'node_modules/'.length)
      .split('/')
      .slice(0, 1)
      .join('/')
  if (url.startsWith('node:')) return url
  const src = url.indexOf('/src/')
  return src >= 0 ? url.slice(src + 1) : url.split('/').slice(-2).join('/')
}

const byFunction = new Map<string, number>()
const byPlace = new Map<string, number>()
for (const [id, us] of selfUs) {
  const node = byId.get(id)
  if (!node) continue
  const { functionName, url, lineNumber } = node.callFrame
  const place = where(url)
  const key = `${functionName || '(anonymous)'} ${place}${url ? `:${lineNumber + 1}` : ''}`
  byFunction.set(key, (byFunction.get(key) ?? 0) + us)
  byPlace.set(place, (byPlace.get(place) ?? 0) + us)
}
const print = (title: string, map: Map<string, number>): void => {
  console.log(`\n${title}`)
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((us / busyUs) * 100).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`)
  }
}
console.log(
  `profile: ${(totalUs / 1e6).toFixed(2)} s, busy ${(busyUs / 1e6).toFixed(2)} s (shares below are of busy time)`,
)
print('self time by package / file', byPlace)
print('self time by function', byFunction)
