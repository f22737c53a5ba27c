/**
 * Engine benchmark: the largest fixture conversation (about 500k characters; a
 * synthetic one of that size when ../shared is absent) compacted by `rules` to 10%,
 * against, in the same run:
 *   - the floor: JSON.parse of the body plus one exact o200k pass over every message;
 *   - LangChain's trimMessages on the same messages with the same token counter.
 * Floor and engine runs are interleaved and each timed as the median of several runs after warm-up.
 */
import fs from 'node:fs'
import path from 'node:path'
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages, type BaseMessage } from '@langchain/core/messages'
import { compact } from '../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS, type StrategyName } from '../../src/engine/compaction/types.ts'
import { parseConversation } from '../../src/engine/messages/index.ts'
import { countConversation, messageTokens, tokenizerCounter } from '../../src/engine/tokens/count.ts'
import { countTextTokens } from '../../src/engine/tokens/tokenizer.ts'
import { CONVERSATIONS as FIXTURES } from '../helpers/fixtures.ts'
import { syntheticConversation, type ChatMessage } from './conversation.ts'


export function largestConversation(): { name: string; messages: ChatMessage[] } {
  if (fs.existsSync(FIXTURES)) {
    let best: { name: string; messages: ChatMessage[]; size: number } | undefined
    for (const f of fs.readdirSync(FIXTURES).filter((x) => x.endsWith('.json'))) {
      const { messages } = JSON.parse(fs.readFileSync(path.join(FIXTURES, f), 'utf8')) as { messages: ChatMessage[] }
      const size = messages.reduce((a, m) => a + (m.content?.length ?? 0) + JSON.stringify(m.tool_calls ?? '').length, 0)
      if (!best || size > best.size) best = { name: f, messages, size }
    }
    if (best) return best
  }
  return { name: 'synthetic (fixtures absent)', messages: syntheticConversation(1200) }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

function toLangChain(messages: ChatMessage[]): BaseMessage[] {
  return messages.map((m) => {
    const content = m.content ?? ''
    switch (m.role) {
      case 'system':
        return new SystemMessage(content)
      case 'user':
        return new HumanMessage(content)
      case 'tool':
        return new ToolMessage({ content, tool_call_id: m.tool_call_id! })
      default:
        return new AIMessage({
          content,
          tool_calls: (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, args: safeJson(c.function.arguments), type: 'tool_call' as const })),
        })
    }
  })
}

function safeJson(s: string): Record<string, unknown> {
  try {
    return JSON.parse(s)
  } catch {
    return { value: s }
  }
}

export interface EngineBench {
  name: string
  chars: number
  messages: number
  tokens: number
  engineMs: number
  floorMs: number
  trimMs: number
  /** The default pipeline (mask + rules). */
  pipelineMs: number
}

/** The floor: read an OpenAI-format body and count its text exactly once (o200k). */
export function parseAndCountFloor(body: string): number {
  const b = JSON.parse(body) as { messages: ChatMessage[] }
  let n = 0
  for (const m of b.messages) {
    if (m.content) n += countTextTokens(m.content, 'o200k_base')
    for (const c of m.tool_calls ?? []) n += countTextTokens(c.function.arguments, 'o200k_base')
  }
  return n
}

export async function benchEngine(runs = 9): Promise<EngineBench> {
  const { name, messages } = largestConversation()
  const body = JSON.stringify({ messages })
  const counter = tokenizerCounter('o200k_base')
  const parsed = parseConversation(messages, { format: 'openai' })
  const tokens = countConversation(parsed.messages, counter).totalTokens
  const target = Math.floor(tokens / 10)

  const floor = () => parseAndCountFloor(body)
  // The engine: parse into the canonical model and compact to 10%, with rules alone and
  // with the default pipeline (mask + rules).
  const engine = (strategy: StrategyName[]) => async () => {
    const b = JSON.parse(body) as { messages: unknown[] }
    const conv = parseConversation(b.messages, { format: 'openai' })
    return compact({ messages: conv.messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format: 'openai', strategy, targetTokens: target, thresholdTokens: target } })
  }
  // Interleaved (floor, rules, default, floor, …) so a busy machine slows all three alike.
  const samples = { floor: [] as number[], rules: [] as number[], pipeline: [] as number[] }
  for (let i = 0; i < runs + 2; i++) {
    let t = performance.now()
    floor()
    const f = performance.now() - t
    t = performance.now()
    await engine(['rules'])()
    const r = performance.now() - t
    t = performance.now()
    await engine(['mask', 'rules'])()
    const p = performance.now() - t
    if (i < 2) continue // warm-up
    samples.floor.push(f)
    samples.rules.push(r)
    samples.pipeline.push(p)
  }
  const floorMs = median(samples.floor)
  const engineMs = median(samples.rules)
  const pipelineMs = median(samples.pipeline)

  // LangChain: trimMessages with the same exact counter, keeping the last messages.
  const lcMessages = toLangChain(messages)
  const lcCounter = (ms: BaseMessage[]) =>
    ms.reduce((a, m) => {
      const text = typeof m.content === 'string' ? m.content : JSON.stringify(m.content)
      const calls = (m as AIMessage).tool_calls ?? []
      return a + 3 + countTextTokens(text, 'o200k_base') + calls.reduce((x, c) => x + countTextTokens(JSON.stringify(c.args), 'o200k_base'), 0)
    }, 0)
  // trimMessages re-counts the growing list at every step (quadratic): one timed run is plenty.
  const t0 = performance.now()
  await trimMessages(lcMessages, { maxTokens: target, strategy: 'last', tokenCounter: lcCounter, includeSystem: true, startOn: 'human' })
  const trimMs = performance.now() - t0

  void messageTokens
  return { name, chars: body.length, messages: messages.length, tokens, engineMs, pipelineMs, floorMs, trimMs }
}
