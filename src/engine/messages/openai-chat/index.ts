/**
 * The OpenAI Chat Completions format (`openai`): parse.ts reads it (and words its
 * errors), write.ts writes canonical messages in it, edit.ts creates and edits its
 * messages; detection and the adapter are here.
 */
import type { CanonicalMessage } from '../canonical.ts'
import type { FormatAdapter, JsonObject } from '../adapter.ts'
import { createTextMessage, createToolCalls, createToolResults, withoutToolResult, withText, withToolCallArgs, withToolResultText } from './edit.ts'
import { parse } from './parse.ts'
import { serialize } from './write.ts'
import { chatCompletionsRequest } from './request.ts'

declare module '../canonical.ts' {
  /** This folder's format name (canonical.ts explains why names are added this way). */
  interface MessageFormatNames {
    openai: true
  }
}

/** Part types of this format; other snake_case and kebab-case types are other formats' (Anthropic, AI SDK, Responses). */
const PART_TYPES = new Set(['text', 'image_url', 'input_audio', 'refusal'])

function part(p: JsonObject): boolean {
  const type = p.type as string
  if (PART_TYPES.has(type)) return true
  if (type === 'image') return p.source === undefined && p.image === undefined
  if (type === 'file') return p.file !== undefined || p.data === undefined
  // Unknown plain types fit any format; other snake_case or kebab-case types are another format's.
  return !type.includes('_') && !type.includes('-') && type !== 'thinking' && type !== 'document' && type !== 'reasoning'
}

/** Calls are `tool_calls` in order, then the legacy `function_call`. */
function callIdField(m: CanonicalMessage, ordinal: number): string {
  const at = `messages[${m.index}]`
  const calls = (m.raw as { tool_calls?: unknown }).tool_calls
  return Array.isArray(calls) && ordinal < calls.length ? `${at}.tool_calls[${ordinal}].id` : `${at}.function_call`
}

export const openaiAdapter: FormatAdapter<'openai'> = {
  format: 'openai',
  label: 'OpenAI',
  detection: {
    topLevelSystem: false,
    roles: ['system', 'developer', 'user', 'assistant', 'tool', 'function'],
    fields: ['tool_calls', 'tool_call_id', 'function_call'],
    nullContent: () => true,
    stringContent: () => true,
    part,
    rank: 1,
  },
  timestampFields: ['timestamp', 'createdAt'],
  parse,
  serialize,
  createTextMessage,
  withToolResultText,
  withToolCallArgs,
  withText,
  withoutToolResult,
  // Chat Completions messages carry no reasoning this model reads (parse.ts).
  withoutReasoning: (message: CanonicalMessage) => message,
  createToolResults,
  createToolCalls,
  callIdField,
  request: chatCompletionsRequest,
}
