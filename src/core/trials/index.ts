export { mergeTrials } from './merge-trials.ts'
export { MAX_KEPT_TRIALS, trialFiguresOf, trialsOf } from './trial-figures.ts'
