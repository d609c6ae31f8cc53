import { readFileSync } from 'node:fs'
const [file, name] = [process.argv[2]!, process.argv[3]!]
const p = JSON.parse(readFileSync(file, 'utf8'))
const parent = new Map<number, number>()
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
const byId = new Map(p.nodes.map((n: any) => [n.id, n]))
const self = new Map<number, number>()
p.samples.forEach((id: number, i: number) => self.set(id, (self.get(id) ?? 0) + p.timeDeltas[i]))
const stacks = new Map<string, number>()
for (const [id, us] of self) {
  const n: any = byId.get(id)
  if (n.callFrame.functionName !== name) continue
  const chain: string[] = []
  let cur = parent.get(id)
  for (let d = 0; d < 6 && cur !== undefined; d++) { const c: any = byId.get(cur); chain.push(`${c.callFrame.functionName}@${c.callFrame.url.split('/').pop()}:${c.callFrame.lineNumber+1}`); cur = parent.get(cur) }
  const k = chain.join(' < ')
  stacks.set(k, (stacks.get(k) ?? 0) + us)
}
for (const [k, us] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log((us / 1000).toFixed(0), 'ms', k)
