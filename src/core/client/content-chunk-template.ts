/**
 * Reads most events of a stream without JSON.parse, exactly.
 *
 * Servers repeat one chunk shape for every token of a stream: vLLM, SGLang and llama.cpp send
 * the same id, model, created and choice fields each time and only the output string changes.
 * A template is a fully parsed content-bearing chunk with that string cut out (the text before
 * it, up to its opening quote, and the text after it, from its closing quote). An event that
 * starts with the one, ends with the other and holds a valid JSON string body in between is the
 * same JSON as the template but for that string: its parse would give the same fields, so only
 * the string's emptiness has to be read (and, when the output text is kept, the string itself: the
 * raw JSON string body, decoded only when it holds an escape); the slot's field tells reasoning
 * from answer. Anything else (another shape, an escape out of place)
 * does not match and is parsed in full, as before. Parsing cost per event goes from a JSON.parse
 * of the whole chunk (~1 µs for vLLM's ~200 bytes) to two string compares and a scan of the text.
 */
import { OUTPUT_FIELDS } from './output-fields.ts'
import { choiceCarriesNonReasoningOutput, choiceCarriesOutput, firstChoice } from './sse-event.ts'
import type { ChunkLike } from './sse-event.ts'

/** {@link ContentChunkTemplate.match}: the event does not have the template's shape. */
export const NO_MATCH = 0
/** The event has the template's shape and carries output that is not reasoning (the answer; maybe reasoning too). */
export const MATCH_WITH_ANSWER = 1
/** The event has the template's shape and carries no output (an empty string). */
export const MATCH_WITHOUT_OUTPUT = 2
/** The event has the template's shape and carries output, all of it reasoning. */
export const MATCH_WITH_REASONING = 3

/** Shapes learned in a row without a match before a stream is read by JSON.parse alone. */
const LEARN_ATTEMPTS = 3
/** A string that no server sends as output, put in the slot to check which field it fills. */
const PROBE = '\\u0000vlb-probe'
const PROBE_DECODED = '\u0000vlb-probe'

type Fields = Record<string, unknown>
type ChoiceFields = Fields & { delta?: Fields | null }

/** Where a choice's output string sits: the object holding it, its field, its key in the raw JSON. */
interface OutputSlot {
  holder: (choice: ChoiceFields) => Fields | undefined
  field: string
  key: string
  reasoning: boolean
}

const ownText = (choice: ChoiceFields): Fields => choice
const delta = (choice: ChoiceFields): Fields | undefined =>
  typeof choice.delta === 'object' && choice.delta !== null ? choice.delta : undefined
/** The output fields of a streamed chunk ({@link OUTPUT_FIELDS}), with their keys in the raw JSON. */
const OUTPUT_SLOTS: OutputSlot[] = OUTPUT_FIELDS.map(({ place, field, reasoning }) => ({
  holder: place === 'choice' ? ownText : delta,
  field,
  key: `"${field}":"`,
  reasoning,
}))

/** The first output field of `choice` holding a non-empty string. */
function outputSlotOf(choice: unknown): OutputSlot | undefined {
  if (typeof choice !== 'object' || choice === null) return undefined
  for (const slot of OUTPUT_SLOTS) {
    const value = slot.holder(choice as ChoiceFields)?.[slot.field]
    if (typeof value === 'string' && value.length > 0) return slot
  }
  return undefined
}

function hexDigit(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102)
}

/**
 * Index of the closing quote of the JSON string body that starts at `from`, or -1 when the
 * text from there is not a valid string body (a control character, a bad escape, no end).
 */
export function jsonStringEnd(text: string, from: number, to: number = text.length): number {
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i)
    if (code === 34) return i
    if (code < 32) return -1
    if (code === 92) {
      const next = text.charCodeAt(i + 1)
      if (next === 117) {
        if (!(
          hexDigit(text.charCodeAt(i + 2)) &&
          hexDigit(text.charCodeAt(i + 3)) &&
          hexDigit(text.charCodeAt(i + 4)) &&
          hexDigit(text.charCodeAt(i + 5))
        ))
          return -1
        i += 5
      } else if (
        next === 34 ||
        next === 92 ||
        next === 47 ||
        next === 98 ||
        next === 102 ||
        next === 110 ||
        next === 114 ||
        next === 116
      ) {
        i += 1
      } else {
        return -1
      }
    }
  }
  return -1
}

/**
 * A copy of `text` that owns its characters. A slice points into the event it came from (keeping
 * it alive), and V8 compares such strings about twice as slowly.
 */
function flatCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string
}

/** The template of one stream. One per request: shapes differ between requests (ids). */
export class ContentChunkTemplate {
  private prefix = ''
  private suffix = ''
  /** The chunk the template was learned from: every field but the output string. */
  private chunk: ChunkLike | undefined = undefined
  /** True when a field other than the slot already makes the choice carry output (reasoning only: see {@link learn}). */
  private carriesWithoutSlot = false
  /** True when the slot holds reasoning text. */
  private slotIsReasoning = false
  private attemptsLeft = LEARN_ATTEMPTS

  /** The fully parsed chunk a match stands for (its fields other than the output string). */
  get learnedChunk(): ChunkLike | undefined {
    return this.chunk
  }

  /** {@link NO_MATCH}, {@link MATCH_WITH_ANSWER}, {@link MATCH_WITH_REASONING} or {@link MATCH_WITHOUT_OUTPUT}. */
  match(data: string): number {
    if (this.chunk === undefined) return NO_MATCH
    const start = this.prefix.length
    const end = data.length - this.suffix.length
    // lastIndexOf(x, 0) and indexOf(x, end) can only match at that one position: a compare of
    // flat strings, several times faster than startsWith/endsWith here, and nothing allocated.
    if (end < start || data.lastIndexOf(this.prefix, 0) !== 0 || data.indexOf(this.suffix, end) !== end) return NO_MATCH
    if (jsonStringEnd(data, start, end + 1) !== end) return NO_MATCH
    this.attemptsLeft = LEARN_ATTEMPTS
    if (end > start) return this.slotIsReasoning ? MATCH_WITH_REASONING : MATCH_WITH_ANSWER
    return this.carriesWithoutSlot ? MATCH_WITH_REASONING : MATCH_WITHOUT_OUTPUT
  }

  /**
   * The answer text of `data`, an event {@link match} found to be {@link MATCH_WITH_ANSWER}: the
   * slot's JSON string body, decoded by JSON.parse only when it holds an escape (else it is the
   * text itself). Called only when the output text is kept.
   */
  answerText(data: string): string {
    const start = this.prefix.length
    const end = data.length - this.suffix.length
    const body = data.slice(start, end)
    // The prefix ends with the opening quote and the suffix starts with the closing one.
    return body.indexOf('\\') < 0 ? body : (JSON.parse(data.slice(start - 1, end + 1)) as string)
  }

  /**
   * Learns the shape of `data`, a content-bearing event already parsed into `chunk`. Gives up
   * (keeps no template) when the output string cannot be located for certain, or when a field
   * other than the slot carries answer text (a match could not tell that answer's events apart:
   * such rare shapes are left to JSON.parse); after a few shapes in a row that never matched,
   * stops trying for this stream.
   */
  learn(data: string, chunk: ChunkLike): void {
    if (this.attemptsLeft <= 0) return
    this.attemptsLeft--
    this.chunk = undefined
    const slot = outputSlotOf(firstChoice(chunk))
    if (slot === undefined) return
    const at = data.indexOf(slot.key)
    if (at < 0) return
    const start = at + slot.key.length
    const end = jsonStringEnd(data, start)
    if (end < 0) return
    const prefix = data.slice(0, start)
    const suffix = data.slice(end)
    // The first such key might belong to another object: check that the slot is this field.
    let probe: ChunkLike
    try {
      probe = JSON.parse(prefix + PROBE + suffix) as ChunkLike
    } catch {
      return
    }
    const probeChoice = firstChoice(probe) as ChoiceFields | undefined
    const holder = probeChoice === undefined ? undefined : slot.holder(probeChoice)
    if (holder === undefined || holder[slot.field] !== PROBE_DECODED) return
    holder[slot.field] = ''
    if (choiceCarriesNonReasoningOutput(probeChoice)) return
    this.carriesWithoutSlot = choiceCarriesOutput(probeChoice)
    this.slotIsReasoning = slot.reasoning
    this.prefix = flatCopy(prefix)
    this.suffix = flatCopy(suffix)
    this.chunk = chunk
  }
}
