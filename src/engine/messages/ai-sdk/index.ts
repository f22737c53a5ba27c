/**
 * The Vercel AI SDK ModelMessage format (`ai-sdk`): parse.ts reads it (and words its
 * errors), write.ts writes canonical messages in it, edit.ts creates and edits its
 * messages; detection and the adapter are here.
 */
import type { CanonicalMessage } from '../canonical.ts'
import { withoutReasoningElements, type FormatAdapter, type JsonObject } from '../adapter.ts'
import { createTextMessage, createToolCalls, createToolResults, withoutToolResult, withText, withToolCallArgs, withToolResultText } from './edit.ts'
import { parse } from './parse.ts'
import { serialize } from './write.ts'

declare module '../canonical.ts' {
  /** This folder's format name (canonical.ts explains why names are added this way). */
  interface MessageFormatNames {
    'ai-sdk': true
  }
}

/** Part types are kebab-case (tool-call, tool-result...), plus text, image, file and reasoning. */
function part(p: JsonObject): boolean {
  const type = p.type as string
  if (type === 'image') return p.image !== undefined || p.source === undefined
  if (type === 'file') return p.data !== undefined || p.file === undefined
  if (type === 'reasoning' || type.includes('-')) return true
  return !type.includes('_') && type !== 'thinking' && type !== 'document' && type !== 'image_url' && type !== 'input_audio' && type !== 'refusal'
}

export const aiSdkAdapter: FormatAdapter<'ai-sdk'> = {
  format: 'ai-sdk',
  label: 'AI SDK',
  detection: {
    topLevelSystem: false,
    roles: ['system', 'user', 'assistant', 'tool'],
    fields: ['providerOptions'],
    nullContent: () => false,
    stringContent: (role) => role !== 'tool',
    part,
    rank: 2,
  },
  // The AI SDK's own messages may carry createdAt.
  timestampFields: ['timestamp'],
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
  callIdField: (m: CanonicalMessage, _ordinal: number, partIndex: number) => `messages[${m.index}].content[${partIndex}].toolCallId`,
}
