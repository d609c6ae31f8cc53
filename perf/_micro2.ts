import { createParser } from 'eventsource-parser'
import { ContentChunkTemplate } from '../src/core/client/content-chunk-template.ts'
const ev = 'data: {"id":"chatcmpl-0000000012345678abcdef","object":"chat.completion.chunk","created":1700000000,"model":"perf-model","choices":[{"index":0,"delta":{"content":" word"},"logprobs":null,"finish_reason":null}]}\n\n'
const N = 300000
const buf = Buffer.from(ev)
const dec = new TextDecoder()
const t1 = new ContentChunkTemplate()
let n = 0
let learned = false
const p = createParser({ onEvent: (e) => { if (!learned) { t1.learn(e.data, JSON.parse(e.data)); learned = true } n += t1.match(e.data) } })
let t = performance.now()
for (let i = 0; i < N; i++) p.feed(dec.decode(buf, { stream: true }))
console.log('parser+decode+match per event us', ((performance.now() - t) * 1000 / N).toFixed(3), n)
const p2 = createParser({ onEvent: (e) => { n += JSON.parse(e.data).choices.length } })
t = performance.now()
for (let i = 0; i < N; i++) p2.feed(dec.decode(buf, { stream: true }))
console.log('parser+decode+parse per event us', ((performance.now() - t) * 1000 / N).toFixed(3), n)
