/**
 * Messages as the dashboard shows them: the server's canonical display form (POST
 * /display), the same for every format, so the dashboard has no parser of its own.
 */
import { api } from './api.ts'

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
/** One message in the display form (the API's DisplayMessage). */
export interface Shown {
  role: string
  text: string
  calls: ToolCall[]
  results: ToolResult[]
}

/** The display form of `messages` (one per element) and of a top-level `system`. */
export function display(body: { messages: unknown[]; format?: string; system?: unknown }): Promise<{ format: string; system?: Shown; messages: Shown[] }> {
  return api('/display', { method: 'POST', body: { messages: body.messages, ...(body.format ? { format: body.format } : {}), ...(body.system !== undefined ? { system: body.system } : {}) } })
}

export function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s
}
