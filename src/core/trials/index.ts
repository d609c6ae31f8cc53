export { mergeTrials } from './merge-trials.ts'
export { trialFiguresOf, trialsOf } from '../contract/trial-figures.ts'
export { mergeSegments } from './merge-segments.ts'
