// TEMPORARY stand-in until the redact branch lands (not committed).
export interface Redaction { text: string; count: number; rules: Record<string, number> }
export function redactSecrets(text: string): Redaction {
  let count = 0
  const out = text.replace(/sk-[A-Za-z0-9_-]{20,}/g, () => { count++; return '[REDACTED:openai-api-key]' })
  return { text: out, count, rules: count ? { 'openai-api-key': count } : {} }
}
export function redactValue(value: unknown): { value: unknown; count: number; rules: Record<string, number> } {
  let count = 0
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') { const r = redactSecrets(v); count += r.count; return r.text }
    if (Array.isArray(v)) return v.map(walk)
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
    return v
  }
  const value2 = walk(value)
  return { value: value2, count, rules: {} }
}
