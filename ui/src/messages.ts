/** Reading messages of any of the three formats (OpenAI, Anthropic, AI SDK) for display. */
export interface ToolCall {
  id: string
  name: string
  args: string
}
export interface ToolResult {
  id: string
  text: string
  isError?: boolean
}
export interface Shown {
  role: string
  text: string
  calls: ToolCall[]
  results: ToolResult[]
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v))

function partsText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return str(content)
  return content
    .map((p) => {
      const part = p as Record<string, unknown>
      if (typeof part.text === 'string') return part.text
      if (part.type === 'image' || part.type === 'image_url') return '[image]'
      return ''
    })
    .filter(Boolean)
    .join('\n')
}

export function readMessage(raw: unknown): Shown {
  const m = (raw ?? {}) as Record<string, unknown>
  const role = str(m.role) || 'unknown'
  const out: Shown = { role, text: '', calls: [], results: [] }
  // OpenAI
  if (Array.isArray(m.tool_calls)) {
    for (const c of m.tool_calls as Record<string, unknown>[]) {
      const f = (c.function ?? {}) as Record<string, unknown>
      out.calls.push({ id: str(c.id), name: str(f.name), args: str(f.arguments) })
    }
  }
  if (role === 'tool' && typeof m.tool_call_id === 'string') {
    out.results.push({ id: m.tool_call_id, text: partsText(m.content) })
    return out
  }
  if (Array.isArray(m.content)) {
    const texts: string[] = []
    for (const p of m.content as Record<string, unknown>[]) {
      if (p.type === 'tool_use') out.calls.push({ id: str(p.id), name: str(p.name), args: str(p.input) })
      else if (p.type === 'tool-call') out.calls.push({ id: str(p.toolCallId), name: str(p.toolName), args: str(p.input ?? p.args) })
      else if (p.type === 'tool_result') out.results.push({ id: str(p.tool_use_id), text: partsText(p.content), isError: p.is_error === true })
      else if (p.type === 'tool-result') {
        const o = p.output as Record<string, unknown> | undefined
        out.results.push({ id: str(p.toolCallId), text: o && 'value' in o ? str(o.value) : str(p.output ?? p.result) })
      } else if (typeof p.text === 'string') texts.push(p.text)
      else if (p.type === 'reasoning' || p.type === 'thinking') texts.push(`(reasoning) ${str(p.text ?? p.thinking)}`)
    }
    out.text = texts.join('\n')
  } else out.text = str(m.content)
  return out
}

export function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s
}
