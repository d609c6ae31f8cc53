export function writeTinyLlamaModel(_options: { vocabPath: string; outputPath: string }): void {
  throw new Error('not yet')
}
