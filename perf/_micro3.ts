import { createParser } from 'eventsource-parser'
const ev = 'data: {"id":"chatcmpl-0000000012345678abcdef","object":"chat.completion.chunk","created":1700000000,"model":"perf-model","choices":[{"index":0,"delta":{"content":" word"},"logprobs":null,"finish_reason":null}]}\n\n'
const N = 300000
const buf = Buffer.from(ev)
const dec = new TextDecoder()
const d0 = ev.slice(6, -2)
const k = d0.indexOf('"content":"') + 11
const e = d0.indexOf('"', k)
const variants: Record<string, (s: string, pre: string, suf: string) => boolean> = {
  startsEnds: (s, pre, suf) => s.startsWith(pre) && s.endsWith(suf),
  sliceEq: (s, pre, suf) => s.slice(0, pre.length) === pre && s.slice(s.length - suf.length) === suf,
  loop: (s, pre, suf) => { for (let i = 0; i < pre.length; i++) if (s.charCodeAt(i) !== pre.charCodeAt(i)) return false; const o = s.length - suf.length; for (let i = 0; i < suf.length; i++) if (s.charCodeAt(o + i) !== suf.charCodeAt(i)) return false; return true },
}
for (const flatten of [false, true]) for (const [name, f] of Object.entries(variants)) {
  let pre = d0.slice(0, k), suf = d0.slice(e)
  if (flatten) { pre = JSON.parse(JSON.stringify(pre)); suf = JSON.parse(JSON.stringify(suf)) }
  let n = 0
  const p = createParser({ onEvent: (ev) => { if (f(ev.data, pre, suf)) n++ } })
  const t = performance.now()
  for (let i = 0; i < N; i++) p.feed(dec.decode(buf, { stream: true }))
  console.log(flatten ? 'flat' : 'sliced', name, ((performance.now() - t) * 1000 / N).toFixed(3), n)
}
let n = 0
const p = createParser({ onEvent: (ev) => { n += ev.data.length } })
const t = performance.now()
for (let i = 0; i < N; i++) p.feed(dec.decode(buf, { stream: true }))
console.log('baseline', ((performance.now() - t) * 1000 / N).toFixed(3), n)
