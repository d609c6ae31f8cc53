/**
 * The tool calls a reply made, collected from its stream (or its one JSON body) so that a session's
 * next `tool` turn can answer them by id. Each API streams a call in pieces:
 *
 * - chat: `delta.tool_calls[]` entries keyed by `index`; the first names the function and gives the
 *   `id`, later ones append to `function.arguments`;
 * - Responses: `response.output_item.added` opens a `function_call` item (`call_id`, `name`),
 *   `response.function_call_arguments.delta` appends by `item_id`, `response.output_item.done`
 *   gives the whole item;
 * - Messages: `content_block_start` opens a `tool_use` block (`id`, `name`) at an `index`,
 *   `content_block_delta` with `input_json_delta` appends `partial_json` there.
 */
import type { ApiKind } from '../contract/api-kinds.ts'
import type { ToolCallMade } from '../contract/request-record.ts'
import { isRecord } from '../contract/is-record.ts'

type Json = Record<string, unknown>

const text = (value: unknown): string => (typeof value === 'string' ? value : '')

/** Collects one reply's tool calls, in the order they opened. */
export class ToolCallsMade {
  /** Calls by the key their pieces carry: chat's `index`, Responses' item id, Messages' block index. */
  readonly #calls = new Map<string, ToolCallMade>()

  #open(key: string, id: string, name: string): ToolCallMade {
    let call = this.#calls.get(key)
    if (call === undefined) {
      call = { id, name, arguments: '' }
      this.#calls.set(key, call)
    } else {
      if (id !== '') call.id = id
      if (name !== '') call.name = name
    }
    return call
  }

  /** A chat chunk's `choices[0].delta` (or a whole reply's `message`): its `tool_calls` entries. */
  chatDelta(delta: unknown): void {
    const entries = isRecord(delta) ? delta.tool_calls : undefined
    if (!Array.isArray(entries)) return
    entries.forEach((entry: unknown, position) => {
      if (!isRecord(entry)) return
      const fn: Json = isRecord(entry.function) ? entry.function : {}
      const key = typeof entry.index === 'number' ? String(entry.index) : String(position)
      this.#open(key, text(entry.id), text(fn.name)).arguments += text(fn.arguments)
    })
  }

  /** One parsed event of a Responses or Messages stream. */
  typedEvent(api: ApiKind, event: Json): void {
    if (api === 'responses') {
      const item = isRecord(event.item) ? event.item : undefined
      if (item !== undefined && item.type === 'function_call') {
        const call = this.#open(text(item.id) || text(item.call_id), text(item.call_id), text(item.name))
        // The item's own arguments are whole when it is done (and empty when it opens).
        if (event.type === 'response.output_item.done' && typeof item.arguments === 'string')
          call.arguments = item.arguments
      } else if (event.type === 'response.function_call_arguments.delta') {
        const call = this.#calls.get(text(event.item_id))
        if (call !== undefined) call.arguments += text(event.delta)
      }
      return
    }
    const key = typeof event.index === 'number' ? String(event.index) : ''
    const block = isRecord(event.content_block) ? event.content_block : undefined
    if (event.type === 'content_block_start' && block?.type === 'tool_use') {
      this.#open(key, text(block.id), text(block.name))
    } else if (event.type === 'content_block_delta' && isRecord(event.delta)) {
      const call = this.#calls.get(key)
      if (call !== undefined && event.delta.type === 'input_json_delta')
        call.arguments += text(event.delta.partial_json)
    }
  }

  /** A Responses or Messages reply that came as one JSON body: its `function_call` items or `tool_use` blocks. */
  typedBody(api: ApiKind, body: Json): void {
    const parts = api === 'responses' ? body.output : body.content
    if (!Array.isArray(parts)) return
    parts.forEach((part: unknown, position) => {
      if (!isRecord(part)) return
      if (api === 'responses' && part.type === 'function_call')
        this.#open(String(position), text(part.call_id), text(part.name)).arguments = text(part.arguments)
      if (api === 'messages' && part.type === 'tool_use')
        this.#open(String(position), text(part.id), text(part.name)).arguments = JSON.stringify(part.input ?? {})
    })
  }

  /** The calls, in the order they opened; undefined when there were none. */
  list(): ToolCallMade[] | undefined {
    return this.#calls.size > 0 ? [...this.#calls.values()] : undefined
  }
}
