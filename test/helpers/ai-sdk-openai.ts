/**
 * A stand-in for `@ai-sdk/openai`'s `openai(modelId)` (not installed here) for the docs'
 * AI SDK example: an AI SDK LanguageModelV3 that calls the real `openai` package's Chat
 * Completions (OPENAI_BASE_URL / OPENAI_API_KEY: the fake provider in the tests).
 * test/sdk-loops.test.ts maps the example's `@ai-sdk/openai` import to this file.
 * generateText only (no streaming); text, tool calls and usage.
 */
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3GenerateResult } from '@ai-sdk/provider'
import OpenAI from 'openai'

function toOpenAI(prompt: LanguageModelV3CallOptions['prompt']): OpenAI.ChatCompletionMessageParam[] {
  const out: OpenAI.ChatCompletionMessageParam[] = []
  for (const m of prompt) {
    if (m.role === 'system') out.push({ role: 'system', content: m.content })
    else if (m.role === 'user') out.push({ role: 'user', content: m.content.map((p) => (p.type === 'text' ? p.text : `[${p.type}]`)).join('') })
    else if (m.role === 'assistant') {
      const text = m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')
      const calls = m.content.flatMap((p) =>
        p.type === 'tool-call' ? [{ id: p.toolCallId, type: 'function' as const, function: { name: p.toolName, arguments: typeof p.input === 'string' ? p.input : JSON.stringify(p.input) } }] : [],
      )
      out.push({ role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: calls } : {}) })
    } else {
      for (const p of m.content) {
        if (p.type !== 'tool-result') continue
        const o = p.output
        const content = o.type === 'text' || o.type === 'error-text' ? o.value : o.type === 'json' || o.type === 'error-json' ? JSON.stringify(o.value) : JSON.stringify(o)
        out.push({ role: 'tool', tool_call_id: p.toolCallId, content })
      }
    }
  }
  return out
}

export function openai(modelId: string): LanguageModelV3 {
  const client = new OpenAI()
  return {
    specificationVersion: 'v3',
    provider: 'openai.chat',
    modelId,
    supportedUrls: {},
    async doGenerate(options): Promise<LanguageModelV3GenerateResult> {
      const tools = (options.tools ?? []).flatMap((t) =>
        t.type === 'function' ? [{ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.inputSchema as Record<string, unknown> } }] : [],
      )
      const completion = await client.chat.completions.create(
        { model: modelId, messages: toOpenAI(options.prompt), ...(tools.length ? { tools } : {}) },
        { signal: options.abortSignal },
      )
      const choice = completion.choices[0]!
      const content: LanguageModelV3Content[] = []
      if (choice.message.content) content.push({ type: 'text', text: choice.message.content })
      for (const call of choice.message.tool_calls ?? []) {
        if (call.type === 'function') content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.function.name, input: call.function.arguments })
      }
      const reason = choice.finish_reason
      return {
        content,
        finishReason: { unified: reason === 'tool_calls' ? 'tool-calls' : reason === 'length' ? 'length' : reason === 'stop' ? 'stop' : 'other', raw: reason },
        usage: {
          inputTokens: { total: completion.usage?.prompt_tokens, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: completion.usage?.completion_tokens, text: undefined, reasoning: undefined },
        },
        warnings: [],
      }
    },
    async doStream() {
      throw new Error('the docs stand-in for @ai-sdk/openai does not stream')
    },
  }
}
