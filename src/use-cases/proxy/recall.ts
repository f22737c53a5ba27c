/**
 * The proxy's recall loop (issue 23, `x-compactd-recall: on`): the request gains a
 * `search_context` tool, and while the model calls only that tool, the proxy answers from
 * the session's archive and asks again, so an agent recalls what compaction dropped without
 * knowing compactd exists. At most PROXY_RECALL_MAX_ROUNDS rounds; then, or as soon as the
 * model answers or calls one of the caller's own tools, its answer goes to the caller.
 *
 * The rounds are asked for whole (not streamed), to read their calls. A caller that asked
 * for a stream gets the final answer streamed: that last request is sent once more with
 * `stream`, its prompt a byte-identical repeat (cached by the provider).
 */
import { Readable } from 'node:stream'
import { withoutStreaming, type ProxyTool, type RequestWire } from '../../engine/messages/index.ts'
import { ApiError } from '../../errors.ts'
import type { UpstreamResponse } from '../../providers/upstream.ts'
import type { SearchResult } from '../archive/archive.ts'

export const SEARCH_CONTEXT_TOOL: ProxyTool = {
  name: 'search_context',
  description:
    'Search the earlier messages of this conversation that were compacted away (archived by compactd): an exact error, a file as read, a command output, a name or number, the reason for a decision. Write keywords or a question. Each hit shows a snippet and its ref.',
  parameters: { type: 'object', properties: { query: { type: 'string', description: 'Keywords or a question, e.g. "chroma RateLimitError batch size".' } }, required: ['query'] },
}

/** A round's whole answer is read to find its calls: at most this many bytes. */
export const MAX_ROUND_ANSWER_BYTES = 16 * 1024 * 1024

export interface RecallLoopDeps {
  /** Sends a body upstream (`whole`: a round, asked for without compression). */
  send(body: string, whole: boolean): Promise<UpstreamResponse>
  /** The archive's answer to one query, as the tool result's text. */
  search(query: string): Promise<string>
  maxRounds: number
}

async function readWhole(body: Readable): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    size += (chunk as Buffer).length
    if (size > MAX_ROUND_ANSWER_BYTES) {
      body.destroy()
      throw new ApiError(502, 'upstream_answer_too_large', `the provider's answer exceeds ${MAX_ROUND_ANSWER_BYTES} bytes, more than the recall loop reads`)
    }
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

export async function recallLoop(wire: RequestWire, body: Record<string, unknown>, deps: RecallLoopDeps): Promise<{ res: UpstreamResponse; rounds: number }> {
  const streamed = body.stream === true
  let current = wire.withTool(body, SEARCH_CONTEXT_TOOL)
  for (let round = 0; ; round++) {
    const res = await deps.send(JSON.stringify(withoutStreaming(current)), true)
    const text = await readWhole(res.body)
    let answer: Record<string, unknown> | undefined
    try {
      const parsed: unknown = JSON.parse(text)
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) answer = parsed as Record<string, unknown>
    } catch {
      answer = undefined
    }
    const calls = res.status === 200 && answer ? wire.callsOf(answer) : []
    const ours = calls.length > 0 && calls.every((c) => c.name === SEARCH_CONTEXT_TOOL.name)
    if (!ours || round >= deps.maxRounds || !answer) {
      // The caller's answer: an error, text, its own tools' calls, or the last round's.
      if (streamed && res.status === 200) return { res: await deps.send(JSON.stringify(current), false), rounds: round }
      return { res: { ...res, body: Readable.from([Buffer.from(text)]) }, rounds: round }
    }
    const answers = await Promise.all(calls.map(async (c) => ({ id: c.id, text: await deps.search(typeof c.input.query === 'string' ? c.input.query : '') })))
    current = wire.withAnswers(current, answer, answers)
  }
}

/** A search's hits as the tool result the model reads: one paragraph per hit, its ref first. */
export function hitsText(query: string, result: SearchResult | undefined): string {
  if (!result) return 'Nothing of this conversation has been archived yet: no earlier message was compacted away.'
  if (result.hits.length === 0) return `No archived message matches ${JSON.stringify(query)}.`
  const lines = result.hits.map((h) => `[ref ${h.ref}] ${h.toolName ? `${h.role} (${h.toolName})` : h.role}: ${h.snippet.replace(/\s+/g, ' ').trim()}`)
  return `Archived messages matching ${JSON.stringify(query)}, best first:\n\n${lines.join('\n\n')}`
}
