/** The shared fixture conversations (read at run time from /work/shared; never copied here). */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** /work/shared/fixtures, found from the repository root (this file is in test/engine/facts/). */
export const SHARED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../shared/fixtures')
export const FIXTURES = path.join(SHARED, 'conversations')
export const TRANSCRIPTS = path.join(SHARED, 'transcripts')

export function fixturesPresent(): boolean {
  return fs.existsSync(FIXTURES) && fs.readdirSync(FIXTURES).some((f) => f.endsWith('.json'))
}

export interface FixtureMessage {
  index: number
  role: string
  /** The content's text (text parts joined by newlines). */
  text: string
  toolCalls: { name: string; arguments: string }[]
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    return content
      .map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : ''))
      .filter(Boolean)
      .join('\n')
  }
  return ''
}

export function fixtureMessages(file: string): FixtureMessage[] {
  const conv = JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8')) as { messages: Record<string, unknown>[] }
  return conv.messages.map((m, index) => ({
    index,
    role: String(m.role),
    text: textOf(m.content),
    toolCalls: Array.isArray(m.tool_calls)
      ? (m.tool_calls as { function?: { name?: string; arguments?: string } }[]).map((c) => ({ name: c.function?.name ?? '', arguments: c.function?.arguments ?? '' }))
      : [],
  }))
}

export function fixtureFiles(): string[] {
  return fixturesPresent() ? fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).sort() : []
}
