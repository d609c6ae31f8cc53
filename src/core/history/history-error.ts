import { LlmBenchError } from '../contract/errors.ts'

/** A bench history could not be read: no git repository, no baseline file, an unreadable results folder. */
export class HistoryError extends LlmBenchError {
  override readonly type = 'history'
}
