import type { ErrorCount } from '../contract/result.ts'
import type { FailureKind } from '../contract/request-record.ts'

/** Distinct (kind, message) pairs kept by default; further messages are counted per kind under {@link OTHER_MESSAGES}. */
export const DEFAULT_DISTINCT_ERROR_MESSAGES = 50

/** Longest message kept, in characters: an HTML error page must not be held once per distinct message. */
export const MAX_ERROR_MESSAGE_LENGTH = 300

/** Message of the per-kind bucket that counts failures whose message did not fit in the table. */
export const OTHER_MESSAGES = '(other messages)'

/** Failures grouped by kind and message, in bounded memory. */
export class ErrorTable {
  readonly maxDistinctMessages: number
  private readonly entries = new Map<string, ErrorCount>()
  private readonly overflow = new Map<FailureKind, number>()

  /** @param maxDistinctMessages Distinct (kind, message) pairs kept. Default {@link DEFAULT_DISTINCT_ERROR_MESSAGES}. */
  constructor(maxDistinctMessages = DEFAULT_DISTINCT_ERROR_MESSAGES) {
    this.maxDistinctMessages = maxDistinctMessages
  }

  add(kind: FailureKind, message: string, count = 1): void {
    if (message === OTHER_MESSAGES) {
      this.overflow.set(kind, (this.overflow.get(kind) ?? 0) + count)
      return
    }
    const text =
      message.length > MAX_ERROR_MESSAGE_LENGTH ? `${message.slice(0, MAX_ERROR_MESSAGE_LENGTH - 1)}…` : message
    const key = `${kind}\u0000${text}`
    const entry = this.entries.get(key)
    if (entry) entry.count += count
    else if (this.entries.size < this.maxDistinctMessages) this.entries.set(key, { kind, message: text, count })
    else this.overflow.set(kind, (this.overflow.get(kind) ?? 0) + count)
  }

  /** True when some failures were counted under {@link OTHER_MESSAGES}. */
  get overflowed(): boolean {
    return this.overflow.size > 0
  }

  /** Number of (kind, message) rows held, overflow rows included; at most `maxDistinctMessages` plus one per kind. */
  get size(): number {
    return this.entries.size + this.overflow.size
  }

  /** Rows sorted by count (descending), then kind and message, so equal inputs give equal output. */
  toArray(): ErrorCount[] {
    const rows: ErrorCount[] = [...this.entries.values()].map((entry) => ({ ...entry }))
    for (const [kind, count] of this.overflow) rows.push({ kind, message: OTHER_MESSAGES, count })
    return rows.sort((a, b) => b.count - a.count || compareText(a.kind, b.kind) || compareText(a.message, b.message))
  }

  merge(other: ErrorTable): void {
    for (const row of other.toArray()) this.add(row.kind, row.message, row.count)
  }

  static fromArray(rows: ErrorCount[], maxDistinctMessages = DEFAULT_DISTINCT_ERROR_MESSAGES): ErrorTable {
    const table = new ErrorTable(maxDistinctMessages)
    for (const row of rows) table.add(row.kind, row.message, row.count)
    return table
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
