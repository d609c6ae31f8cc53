import type { BenchProgressArtifact } from './progress-artifact.ts'
import { figureOrDash, formatSeconds } from './format-figures.ts'

/**
 * The live line of a running bench: its stage (trial, sweep point), requests done/total, elapsed,
 * recent TTFT p50 and output tokens/s, a silent server, and a safety stop.
 */
export function formatProgressLine(name: string, progress: Omit<BenchProgressArtifact, 'type'>): string {
  if (progress.soakWindow !== undefined) return `${name}: ${progress.soakWindow}`
  const done = progress.total !== undefined ? `${progress.done}/${progress.total}` : `${progress.done}`
  const tokensPerSec = progress.elapsedMs > 0 ? (progress.outputTokens * 1000) / progress.elapsedMs : 0
  const parts = [
    `${done} requests`,
    formatSeconds(progress.elapsedMs),
    `TTFT p50 ${progress.ttftP50Ms !== undefined ? `${figureOrDash(progress.ttftP50Ms)} ms` : '-'}`,
    `${figureOrDash(tokensPerSec)} output tok/s`,
  ]
  if (progress.silentMs !== undefined)
    parts.push(
      `no byte from the server for ${Math.floor(progress.silentMs / 1000)} s with ${progress.inFlight ?? 0} requests in flight`,
    )
  if (progress.stopping !== undefined) parts.push(`stopping (stopWhen): ${progress.stopping}`)
  return `${name}${progress.stage !== undefined ? ` [${progress.stage}]` : ''}: ${parts.join(' · ')}`
}
