import { createRandom } from '../../src/core/platform/random.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'

/** A completed, streamed request with usage; override any field. */
export function okRecord(fields: Partial<RequestRecord> & Pick<RequestRecord, 'sentAt' | 'endAt'>): RequestRecord {
  return {
    index: 0,
    plannedAt: undefined,
    headersAt: undefined,
    firstTokenAt: undefined,
    chunkTimes: [],
    outputTokens: 0,
    inputTokens: 0,
    usageReported: true,
    streamed: true,
    readInOneBurst: false,
    ok: true,
    ...fields,
  }
}

/** A failed request; its (large) timings must not reach any distribution. */
export function failedRecord(
  index: number,
  kind: NonNullable<RequestRecord['error']>['kind'],
  message: string,
): RequestRecord {
  return {
    index,
    plannedAt: undefined,
    sentAt: 4000,
    headersAt: undefined,
    firstTokenAt: 4001,
    endAt: 999_999,
    chunkTimes: [4001, 500_000],
    outputTokens: 77,
    inputTokens: 99,
    usageReported: true,
    streamed: true,
    readInOneBurst: false,
    ok: false,
    error: { kind, message },
  }
}

/**
 * Three hand-computed requests:
 *   r0: TTFT 100, E2E 200, 4 tokens -> TPOT 100/3, ITL 20, 30, 50; 10 input tokens
 *   r1: TTFT 50,  E2E 70,  3 tokens -> TPOT 10,    ITL 10, 10;     20 input tokens
 *   r2: TTFT 300, E2E 300, 1 token  -> no TPOT,    no ITL;         30 input tokens
 */
export function threeRecords(): RequestRecord[] {
  return [
    okRecord({
      index: 0,
      sentAt: 1000,
      firstTokenAt: 1100,
      chunkTimes: [1100, 1120, 1150, 1200],
      endAt: 1200,
      outputTokens: 4,
      inputTokens: 10,
    }),
    okRecord({
      index: 1,
      sentAt: 2000,
      firstTokenAt: 2050,
      chunkTimes: [2050, 2060, 2070],
      endAt: 2070,
      outputTokens: 3,
      inputTokens: 20,
    }),
    okRecord({
      index: 2,
      sentAt: 3000,
      firstTokenAt: 3300,
      chunkTimes: [3300],
      endAt: 3300,
      outputTokens: 1,
      inputTokens: 30,
    }),
  ]
}

/** Deterministic pseudo-random numbers in [0, 1), from the package's own seeded generator. */
export function seededRandom(seed: number): () => number {
  const random = createRandom(seed)
  return () => random.next()
}

/** A plausible streamed request with random timings (ms) and `chunks` content-bearing events. */
export function randomRecord(random: () => number, index: number, chunks = 8): RequestRecord {
  const sentAt = index * 10 + random() * 5
  const firstTokenAt = sentAt + 20 + random() * 400
  const chunkTimes: number[] = [firstTokenAt]
  for (let i = 1; i < chunks; i++) chunkTimes.push((chunkTimes[i - 1] as number) + 1 + random() * 60)
  const endAt = chunkTimes[chunkTimes.length - 1] as number
  return okRecord({
    index,
    sentAt,
    firstTokenAt,
    chunkTimes,
    endAt,
    outputTokens: chunks,
    inputTokens: 100 + Math.floor(random() * 900),
  })
}
