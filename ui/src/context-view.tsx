/**
 * "The context the model gets now": GET /sessions/:id/context, as the agent would read it
 * before its next call (system, the summary, messages awaiting summary, the window),
 * with the route's own figures. Loaded on its own: it is compute work that can be refused
 * (422 budget_unreachable, 503 overloaded) without the rest of the page failing.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, fmtInt } from './api.ts'
import { MessageList, type ListedMessage } from './message-list.tsx'
import { display, type Shown } from './messages.ts'

interface SessionContext {
  format: string
  model: string
  budget: number
  tokens: number
  compacted: boolean
  strategy: string
  summaryVersion: number
  stale: boolean
  messages: unknown[]
  system?: unknown
}

/** `generation`: bumped by the page when what the context is made of changed (a summary saved). */
export function CurrentContext({ base, generation }: { base: string; generation: number }) {
  const [context, setContext] = useState<(SessionContext & { shown: { system?: Shown; messages: Shown[] } }) | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    let live = true
    setError(null)
    api<SessionContext>(`${base}/context`)
      .then(async (c) => ({ ...c, shown: await display(c) }))
      .then(
        (c) => live && setContext(c),
        (e: Error) => live && setError(e.message),
      )
    return () => {
      live = false
    }
  }, [base, generation])

  const items: ListedMessage[] = []
  if (context) {
    // Anthropic: system messages and the summary are the top-level `system`, sent before the messages.
    if (context.shown.system) items.push({ shown: context.shown.system, meta: <b>top-level system</b>, ref: 'system' })
    context.shown.messages.forEach((shown, i) => items.push({ shown, meta: <>#{i} <b>{shown.role}</b></>, ref: `#${i}` }))
  }
  return (
    <section aria-labelledby="context-title" data-testid="context">
      <h2 id="context-title">
        Context the model gets now <span class="muted">GET /context</span>
      </h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {!context && !error && <p class="loading">Loading the context…</p>}
      {context && (
        <>
          <p class="figures" data-testid="context-figures">
            {fmtInt(context.tokens)} of {fmtInt(context.budget)} tokens for {context.model} · {fmtInt(context.messages.length)} {context.format} messages ·{' '}
            {context.summaryVersion ? `summary v${context.summaryVersion}` : 'no summary yet'} ·{' '}
            {context.compacted ? `trimmed to the budget (${context.strategy})` : 'fits the budget untrimmed'}
            {context.stale ? ' · stale: messages not yet in the summary are sent as they are' : ''}
          </p>
          <MessageList items={items} testid="context-messages" />
        </>
      )}
    </section>
  )
}
