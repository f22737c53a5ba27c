/** Shared fixtures of the rolling-summary tests (test/engine/sessions/*.test.ts). */
import type { CanonicalMessage, CanonicalPart } from '../../../src/engine/messages/canonical.ts'
import { emptySummary, SECTION_KEYS, type Exchange, type SectionKey, type SummaryDocument, type SummaryItem } from '../../../src/engine/sessions/index.ts'
import { heuristicCounter } from '../../../src/engine/tokens/count.ts'

export const counter = heuristicCounter(false)
export const countText = (s: string) => Math.ceil(counter.text(s) * counter.margin)
export const HOUR = 3_600_000
export const DAY = 24 * HOUR
export const T0 = Date.parse('2026-06-12T12:00:00.000Z') // a Friday
export const iso = (ms: number) => new Date(ms).toISOString()

let idx = 0
export function msg(role: CanonicalMessage['role'], parts: CanonicalPart[], timestamp?: string): CanonicalMessage {
  const m: CanonicalMessage = { role, parts, index: idx++, format: 'openai', raw: {} }
  if (timestamp) m.timestamp = timestamp
  return m
}
export const text = (s: string): CanonicalPart => ({ type: 'text', text: s })
export const call = (id: string, name: string, args: unknown): CanonicalPart => ({ type: 'tool-call', id, name, argsText: JSON.stringify(args) })
export const result = (callId: string, s: string, isError = false): CanonicalPart => ({ type: 'tool-result', callId, text: s, isError })

export function item(text: string, at: number, extra: Partial<SummaryItem> = {}): SummaryItem {
  return { text, at: iso(at), tokens: 1200, importance: 'medium', ...extra }
}

export function docWith(sections: Partial<Record<SectionKey, SummaryItem[]>>): SummaryDocument {
  const doc = emptySummary()
  for (const key of SECTION_KEYS) doc.sections[key] = sections[key] ?? []
  return doc
}

export function where(doc: SummaryDocument, needle: string): SectionKey | undefined {
  return SECTION_KEYS.find((k) => doc.sections[k].some((i) => i.text.includes(needle)))
}

/** A realistic exchange: failing test run, the cause stated, an edit, the test passing. */
export function fixExchange(start: number, n = 0): Exchange {
  const ts = (k: number) => iso(start + k * 60_000)
  return {
    messages: [
      msg('user', [text(`The expired-token test fails again (${n}), please fix it without changing the public API`)], ts(0)),
      msg('assistant', [text('Let me run the auth tests first.'), call(`c1_${n}`, 'bash', { command: 'npm test -- test/auth.test.ts' })], ts(1)),
      msg(
        'tool',
        [result(`c1_${n}`, 'FAIL test/auth.test.ts\n  ✕ rejects expired tokens (12 ms)\nTypeError: Cannot read properties of undefined (reading \'exp\')\n    at verifyToken (src/auth/jwt.ts:42:18)\nProcess exited with code 1')],
        ts(2),
      ),
      msg(
        'assistant',
        [
          text('The root cause is that verifyToken in src/auth/jwt.ts returns undefined for expired tokens instead of throwing TokenExpiredError.'),
          call(`c2_${n}`, 'str_replace_based_edit_tool', { command: 'str_replace', path: 'src/auth/jwt.ts', old_str: 'if (expired) return undefined', new_str: 'if (expired) throw new TokenExpiredError(payload.exp)' }),
        ],
        ts(3),
      ),
      msg('tool', [result(`c2_${n}`, 'The file src/auth/jwt.ts has been edited.')], ts(4)),
      msg('assistant', [call(`c3_${n}`, 'bash', { command: 'npm test -- test/auth.test.ts' })], ts(5)),
      msg('tool', [result(`c3_${n}`, 'PASS test/auth.test.ts\n  ✓ rejects expired tokens\nProcess exited with code 0')], ts(6)),
      msg('assistant', [text('Fixed: expired tokens now throw TokenExpiredError, and the auth tests pass.')], ts(7)),
    ],
  }
}
