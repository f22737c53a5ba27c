/**
 * The Anthropic Messages format (`anthropic`): parse.ts reads it (and words its errors),
 * write.ts writes canonical messages in it, edit.ts creates and edits its messages;
 * detection and the adapter are here.
 */
import type { CanonicalMessage } from '../canonical.ts'
import { withoutReasoningElements, type FormatAdapter, type JsonObject } from '../adapter.ts'
import { createTextMessage, createToolCalls, createToolResults, withoutToolResult, withText, withToolCallArgs, withToolResultText } from './edit.ts'
import { parse } from './parse.ts'
import { serialize } from './write.ts'
import { messagesRequest } from './request.ts'

declare module '../canonical.ts' {
  /** This folder's format name (canonical.ts explains why names are added this way). */
  interface MessageFormatNames {
    anthropic: true
  }
}

/** Block types are snake_case (tool_use, server_tool_use, web_search_tool_result...). */
function part(p: JsonObject): boolean {
  const type = p.type as string
  if (type === 'image') return p.source !== undefined || p.image === undefined
  if (type === 'file') return p.file === undefined && p.data === undefined
  if (type === 'image_url' || type === 'input_audio' || type === 'refusal') return false // OpenAI's
  if (type === 'thinking' || type === 'document' || type.includes('_')) return true
  return type !== 'reasoning' && !type.includes('-')
}

export const anthropicAdapter: FormatAdapter<'anthropic'> = {
  format: 'anthropic',
  label: 'Anthropic',
  detection: {
    topLevelSystem: true,
    roles: ['user', 'assistant'],
    fields: [],
    nullContent: () => false,
    stringContent: (role) => role === 'user' || role === 'assistant',
    part,
    rank: 4,
  },
  timestampFields: ['timestamp', 'createdAt'],
  parse,
  serialize,
  createTextMessage,
  withToolResultText,
  withToolCallArgs,
  withText,
  withoutToolResult,
  withoutReasoning: withoutReasoningElements,
  createToolResults,
  createToolCalls,
  callIdField: (m: CanonicalMessage, _ordinal: number, partIndex: number) => `messages[${m.index}].content[${partIndex}].id`,
  request: messagesRequest,
}
