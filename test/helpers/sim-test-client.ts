// A deliberately small raw HTTP client for the simulator tests (independent of src/core/client).

/** One server-sent event and when the client had it parsed (performance.now()). */
export interface ReceivedEvent {
  data: string
  at: number
}

export interface StreamResponse {
  status: number
  headers: Headers
  sentAt: number
  events: ReceivedEvent[]
  /** Everything received, decoded. */
  text: string
  /** Set when the body ended with a network error (e.g. the server dropped the connection). */
  error?: Error
}

export async function post(
  url: string,
  body: unknown,
  init: { headers?: Record<string, string>; signal?: AbortSignal; onEvent?: (event: ReceivedEvent) => void } = {},
): Promise<StreamResponse> {
  const sentAt = performance.now()
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(init.signal ? { signal: init.signal } : {}),
  })
  const result: StreamResponse = { status: response.status, headers: response.headers, sentAt, events: [], text: '' }
  if (!response.body) return result
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let pending = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      const at = performance.now()
      const chunk = decoder.decode(value, { stream: true })
      result.text += chunk
      pending += chunk
      let end: number
      while ((end = pending.indexOf('\n\n')) !== -1) {
        const block = pending.slice(0, end)
        pending = pending.slice(end + 2)
        if (block.startsWith('data: ')) {
          const event = { data: block.slice(6), at }
          result.events.push(event)
          init.onEvent?.(event)
        }
      }
    }
  } catch (error) {
    result.error = error as Error
  }
  return result
}

/** Parsed JSON of every event except `[DONE]`. */
export function eventJson(response: StreamResponse): Array<Record<string, unknown>> {
  return response.events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data) as Record<string, unknown>)
}

/** The content of a chat or completions chunk's first choice, or undefined. */
export function chunkText(chunk: Record<string, unknown>): string | undefined {
  const choices = chunk.choices as Array<{ delta?: { content?: string }; text?: string }> | undefined
  const choice = choices?.[0]
  return choice?.delta?.content ?? choice?.text
}

export function chatBody(content: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'sim-model',
    messages: [{ role: 'user', content }],
    stream: true,
    stream_options: { include_usage: true },
    ...extra,
  }
}
