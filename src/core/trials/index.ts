export { mergeTrials } from './merge-trials.ts'
export { trialFiguresOf, trialsOf } from './trial-figures.ts'
export { mergeSegments, SEGMENT_START_LAG_LIMIT_MS } from './merge-segments.ts'
