/**
 * A list of messages as an agent's transcript: each tool call with its result beside it,
 * results shown once. `[ref …]` marks in texts open the archived original (archive-links.tsx).
 */
import type { ComponentChildren } from 'preact'
import { RefText } from './archive-links.tsx'
import { clip, type Shown, type ToolResult } from './messages.ts'

export interface ListedMessage {
  /** The message in the server's display form (POST /display). */
  shown: Shown
  /** The line above the message: its position, role, tokens, time, as the caller knows them. */
  meta: ComponentChildren
  /** How a result from this message is referred to beside its call ("#12, 40 tokens"). */
  ref: string
}

/** Characters shown of a message's text, a call's arguments and a result before "…". */
export interface ClipLimits {
  text: number
  args: number
  result: number
}
export const LIST_CLIP: ClipLimits = { text: 2000, args: 300, result: 600 }

export function MessageList({ items, testid, limits = LIST_CLIP }: { items: ListedMessage[]; testid: string; limits?: ClipLimits }) {
  const shown = items
  const results = new Map<string, ToolResult & { ref: string }>()
  for (const m of shown) for (const r of m.shown.results) results.set(r.id, { ...r, ref: m.ref })
  const paired = new Set<string>()
  for (const m of shown) for (const c of m.shown.calls) if (results.has(c.id)) paired.add(c.id)
  return (
    <ol class="window" data-testid={testid}>
      {shown
        // A message holding only results shown beside their calls is not shown again.
        .filter((m) => !(m.shown.results.length && m.shown.results.every((r) => paired.has(r.id)) && !m.shown.text))
        .map((m) => (
          <li class={`msg role-${m.shown.role}`}>
            <div class="meta">{m.meta}</div>
            {m.shown.text && <div class="text"><RefText text={clip(m.shown.text, limits.text)} /></div>}
            {m.shown.calls.map((c) => {
              const r = results.get(c.id)
              return (
                <div class="call">
                  <div>
                    → <code>{c.name}</code> <code class="args">{clip(c.args, limits.args)}</code>
                  </div>
                  {r ? (
                    <div class={`result${r.isError ? ' bad' : ''}`}>
                      ← result ({r.ref}): <span><RefText text={clip(r.text, limits.result)} /></span>
                    </div>
                  ) : (
                    <div class="result muted">← no result in this list</div>
                  )}
                </div>
              )
            })}
            {m.shown.results
              .filter((r) => !paired.has(r.id))
              .map((r) => (
                <div class="result">
                  ← result of {r.id}: <RefText text={clip(r.text, limits.result)} />
                </div>
              ))}
          </li>
        ))}
    </ol>
  )
}
