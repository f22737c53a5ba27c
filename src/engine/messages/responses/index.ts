/**
 * The OpenAI Responses API input items format (`responses`), which Codex and most new
 * OpenAI agents speak: parse.ts reads it (and words its errors), write.ts writes
 * canonical messages in it, edit.ts creates and edits its messages; detection and the
 * adapter are here.
 */
import type { CanonicalMessage } from '../canonical.ts'
import type { FormatAdapter, JsonObject } from '../adapter.ts'
import { createTextMessage, createToolCalls, createToolResults, withoutReasoning, withoutToolResult, withText, withToolCallArgs, withToolResultText } from './edit.ts'
import { itemType, parse } from './parse.ts'
import { itemsOf, serialize } from './write.ts'
import { responsesRequest } from './request.ts'

declare module '../canonical.ts' {
  /** This folder's format name (canonical.ts explains why names are added this way). */
  interface MessageFormatNames {
    responses: true
  }
}

const PART_TYPES = new Set(['input_text', 'output_text', 'input_image', 'input_file', 'input_audio', 'refusal'])
const ROLES = ['user', 'assistant', 'system', 'developer']

/** Where a tool call's id is: the `call_id` of its item (items of a message are consecutive elements of the caller's array). */
function callIdField(m: CanonicalMessage, _ordinal: number, partIndex: number): string {
  let seen = 0
  const items = itemsOf(m)
  for (let k = 0; k < items.length; k++) {
    const item = items[k]!
    const content = item.content
    seen += itemType(item) !== 'message' ? 1 : typeof content === 'string' ? (content === '' ? 0 : 1) : Array.isArray(content) ? content.length : 0
    if (seen > partIndex) return `messages[${m.index + k}].call_id`
  }
  return `messages[${m.index}].call_id`
}

export const responsesAdapter: FormatAdapter<'responses'> = {
  format: 'responses',
  label: 'OpenAI Responses',
  detection: {
    topLevelSystem: false,
    roles: ROLES,
    fields: ['type', 'call_id'],
    // Items other than messages (no role) may have `content: null`: Codex writes reasoning so.
    nullContent: (role) => role === undefined,
    stringContent: (role) => typeof role === 'string' && ROLES.includes(role),
    part: (p: JsonObject) => PART_TYPES.has(p.type as string),
    rank: 3,
  },
  timestampFields: ['timestamp', 'createdAt'],
  parse,
  serialize,
  createTextMessage,
  withToolResultText,
  withToolCallArgs,
  withText,
  withoutToolResult,
  withoutReasoning,
  createToolResults,
  createToolCalls,
  callIdField,
  request: responsesRequest,
}
