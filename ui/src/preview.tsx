/**
 * Compaction preview: a conversation in (pasted or uploaded; an agent log through POST
 * /import), a dry run of POST /compact for the plan, then the same request without a
 * sessionId for the summary. Nothing is stored: neither request names a session.
 */
import { useState } from 'preact/hooks'
import { api, ApiError, fmtInt } from './api.ts'
import { Markdown } from './markdown.tsx'
import { clip, readMessage } from './messages.ts'

type Action = 'keep' | 'mask' | 'condense' | 'summarize' | 'drop'
const ACTION_LABEL: Record<Action, string> = { keep: 'kept', mask: 'masked', condense: 'condensed', summarize: 'summarised', drop: 'dropped' }

interface Plan {
  from: number
  to: number
  action: Exclude<Action, 'drop'>
  reason: string
}
interface CompactResult {
  compacted: boolean
  reason?: string
  messages: unknown[]
  system?: unknown
  format: string
  model: string
  targetTokens: number
  strategy: string
  plan: Plan[]
  event: { tokensBefore: number; tokensAfter: number; compressionRatio: number; summaryTokens: number; durationMs: number }
  summary?: { text: string; index: number }
  fallbacks: { strategy: string; reason: string }[]
}
interface Estimate {
  totalTokens: number
  perMessage: { index: number; role: string; tokens: number }[]
}
interface Row {
  index: number
  role: string
  text: string
  action: Action
  reason: string
  before: number
  after: number | null
}

const STRATEGIES: Record<string, string[]> = {
  'mask + rules (default)': ['mask', 'rules'],
  mask: ['mask'],
  rules: ['rules'],
  'mask + llm': ['mask', 'llm'],
  truncate: ['truncate'],
}

function parseInput(text: string): { messages: unknown[]; system?: unknown } {
  const v = JSON.parse(text) as unknown
  if (Array.isArray(v)) return { messages: v }
  if (v && typeof v === 'object' && Array.isArray((v as { messages?: unknown }).messages)) {
    const o = v as { messages: unknown[]; system?: unknown }
    return o.system !== undefined ? { messages: o.messages, system: o.system } : { messages: o.messages }
  }
  throw new Error('expected a JSON array of messages, or an object with "messages" (and optionally "system")')
}

export function Preview() {
  const [text, setText] = useState('')
  const [kind, setKind] = useState('auto')
  const [model, setModel] = useState('gpt-4o')
  const [budget, setBudget] = useState('')
  const [strategy, setStrategy] = useState('mask + rules (default)')
  const [keepRecent, setKeepRecent] = useState('10')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [out, setOut] = useState<{ rows: Row[]; dry: CompactResult; real: CompactResult | null; before: number } | null>(null)

  async function run(e: Event) {
    e.preventDefault()
    setBusy(true)
    setError(null)
    setOut(null)
    try {
      let conv: { messages: unknown[]; system?: unknown }
      let format: string | undefined
      if (kind === 'agent-log') {
        try {
          const imported = await api<{ messages: unknown[]; system?: unknown; format: string }>('/import', { method: 'POST', body: { log: text } })
          conv = imported.system !== undefined ? { messages: imported.messages, system: imported.system } : { messages: imported.messages }
          format = imported.format
        } catch (err) {
          if (err instanceof ApiError && err.status === 404 && err.code !== 'not_found') throw err
          if (err instanceof ApiError && err.status === 404) throw new Error('This server has no POST /import: paste the conversation as messages instead.')
          throw err
        }
      } else {
        conv = parseInput(text)
        if (kind !== 'auto') format = kind
      }
      const common = {
        messages: conv.messages,
        ...(conv.system !== undefined ? { system: conv.system } : {}),
        ...(format ? { format } : {}),
        model,
        ...(budget ? { targetTokens: Number(budget) } : {}),
        ...(keepRecent !== '' ? { keepRecent: Number(keepRecent) } : {}),
        strategy: STRATEGIES[strategy],
        force: true,
      }
      const estimate = await api<Estimate>('/estimate', { method: 'POST', body: { messages: conv.messages, ...(conv.system !== undefined ? { system: conv.system } : {}), ...(format ? { format } : {}), model } })
      const dry = await api<CompactResult>('/compact', { method: 'POST', body: { ...common, dryRun: true } })
      // The summary itself: the same request, not a dry run, and without a sessionId (nothing stored).
      const real = dry.plan.some((p) => p.action !== 'keep') ? await api<CompactResult>('/compact', { method: 'POST', body: common }) : null
      const afterEstimate = real?.compacted ? await api<Estimate>('/estimate', { method: 'POST', body: { messages: real.messages, ...(real.system !== undefined ? { system: real.system } : {}), format: real.format, model } }) : null
      setOut({ rows: rowsOf(conv.messages, estimate, real ?? dry, afterEstimate), dry, real, before: estimate.totalTokens })
    } catch (err) {
      setError((err as Error).message)
    } finally {
      setBusy(false)
    }
  }

  async function upload(e: Event) {
    const file = (e.currentTarget as HTMLInputElement).files?.[0]
    if (file) setText(await file.text())
  }

  return (
    <section aria-labelledby="preview-title">
      <h1 id="preview-title">Compaction preview</h1>
      <p class="muted">A dry run of POST /compact, then the same request without a sessionId to show the summary. Nothing is stored.</p>
      <form class="preview-form" onSubmit={run}>
        <label for="conv-input">Conversation (JSON: messages array, or {'{'}"messages", "system"{'}'}; or an agent log)</label>
        <textarea id="conv-input" rows={10} value={text} onInput={(e) => setText(e.currentTarget.value)} spellcheck={false} />
        <div class="toolbar">
          <label for="conv-file">Or upload a file</label>
          <input id="conv-file" type="file" accept=".json,.jsonl,.txt,application/json" onChange={upload} />
          <label for="conv-kind">Input</label>
          <select id="conv-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
            <option value="auto">messages, format detected</option>
            <option value="openai">OpenAI messages</option>
            <option value="anthropic">Anthropic messages</option>
            <option value="ai-sdk">AI SDK messages</option>
            <option value="agent-log">agent log (POST /import)</option>
          </select>
        </div>
        <div class="toolbar">
          <label for="opt-model">Model</label>
          <input id="opt-model" value={model} onInput={(e) => setModel(e.currentTarget.value)} />
          <label for="opt-budget">Budget (tokens)</label>
          <input id="opt-budget" type="number" min={1} placeholder="model threshold" value={budget} onInput={(e) => setBudget(e.currentTarget.value)} />
          <label for="opt-strategy">Strategy</label>
          <select id="opt-strategy" value={strategy} onChange={(e) => setStrategy(e.currentTarget.value)}>
            {Object.keys(STRATEGIES).map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
          <label for="opt-keep">keepRecent</label>
          <input id="opt-keep" type="number" min={0} value={keepRecent} onInput={(e) => setKeepRecent(e.currentTarget.value)} />
          <button type="submit" disabled={busy || !text.trim()}>
            {busy ? 'Running…' : 'Preview'}
          </button>
        </div>
      </form>
      {error && <p role="alert" class="error">{error}</p>}
      {out && <PreviewResult {...out} />}
    </section>
  )
}

/** Each input message with what the plan does to it; tokens after from the compacted output, matched in order. */
function rowsOf(messages: unknown[], estimate: Estimate, result: CompactResult, after: Estimate | null): Row[] {
  const action = (i: number): Plan | undefined => result.plan.find((p) => p.from <= i && i <= p.to)
  const rows: Row[] = messages.map((m, i) => {
    const p = action(i)
    const shown = readMessage(m)
    const text = shown.text || shown.calls.map((c) => `${c.name}(${c.args})`).join(' ') || shown.results.map((r) => r.text).join(' ')
    // A range that masks or condenses masks its tool results; its other messages are condensed (condense) or left as they are (mask).
    const toolResult = shown.results.length > 0 && !shown.text && shown.calls.length === 0
    let act: Action = p ? p.action : 'drop'
    let reason = p?.reason ?? 'not in the output'
    if (p && (p.action === 'mask' || p.action === 'condense')) {
      if (toolResult) [act, reason] = ['mask', 'tool result masked']
      else if (p.action === 'mask') [act, reason] = ['keep', 'unchanged (its tool results masked)']
    }
    return { index: i, role: shown.role, text, action: act, reason, before: estimate.perMessage.find((x) => x.index === i)?.tokens ?? 0, after: null }
  })
  if (after && result.compacted) {
    // Output messages other than the summary stand, in order, for the input messages that were not summarised or dropped.
    const outTokens = after.perMessage.filter((p) => p.index !== result.summary?.index).map((p) => p.tokens)
    let k = 0
    for (const r of rows) {
      if (r.action === 'summarize' || r.action === 'drop') r.after = 0
      else r.after = outTokens[k++] ?? null
    }
  } else for (const r of rows) r.after = r.action === 'keep' ? r.before : null
  return rows
}

function PreviewResult({ rows, dry, real, before }: { rows: Row[]; dry: CompactResult; real: CompactResult | null; before: number }) {
  const counts = rows.reduce<Record<string, number>>((a, r) => ((a[r.action] = (a[r.action] ?? 0) + 1), a), {})
  const final = real ?? dry
  return (
    <div data-testid="preview-result">
      <p class="figures">
        Dry run: {fmtInt(dry.event.tokensBefore)} → about {fmtInt(dry.event.tokensAfter)} tokens (budget {fmtInt(dry.targetTokens)}, {dry.model}).
        {real && (real.compacted ? ` Compacted: ${fmtInt(real.event.tokensBefore)} → ${fmtInt(real.event.tokensAfter)} tokens (×${real.event.compressionRatio}), strategy ${real.strategy}, ${real.event.durationMs} ms.` : ` Not compacted: ${real.reason ?? ''}`)}
        {!real && ` ${dry.reason ?? ''}`}
      </p>
      {final.fallbacks.length > 0 && <p class="muted">Fallbacks: {final.fallbacks.map((f) => `${f.strategy} (${f.reason})`).join('; ')}</p>}
      <ul class="legend" aria-label="Legend">
        {(['keep', 'mask', 'condense', 'summarize', 'drop'] as Action[]).map((a) => (
          <li>
            <span class={`swatch act-${a}`} aria-hidden="true" /> {ACTION_LABEL[a]} ({counts[a] ?? 0})
          </li>
        ))}
      </ul>
      <div class="strip" data-testid="strip" aria-label={`${rows.length} messages, ${fmtInt(before)} tokens`}>
        {rows.map((r) => (
          <div
            class={`cell act-${r.action}`}
            data-index={r.index}
            data-action={r.action}
            data-role={r.role}
            style={{ flexGrow: Math.max(1, r.before) }}
            title={`#${r.index} ${r.role}: ${ACTION_LABEL[r.action]} (${r.reason}), ${r.before} → ${r.after ?? '?'} tokens`}
          />
        ))}
      </div>
      <table class="grid" data-testid="preview-table">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Role</th>
            <th scope="col">What happened</th>
            <th scope="col" class="num">Tokens before</th>
            <th scope="col" class="num">Tokens after</th>
            <th scope="col">Content</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr data-index={r.index} data-action={r.action}>
              <td>{r.index}</td>
              <td>{r.role}</td>
              <td>
                <span class={`badge act-${r.action}`}>{ACTION_LABEL[r.action]}</span> <span class="muted">{r.reason}</span>
              </td>
              <td class="num">{fmtInt(r.before)}</td>
              <td class="num">{r.after === null ? '–' : fmtInt(r.after)}</td>
              <td class="content">{clip(r.text, 160)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {real?.summary && (
        <section aria-labelledby="preview-summary-title">
          <h2 id="preview-summary-title">Summary produced</h2>
          <Markdown text={real.summary.text} testid="preview-summary" />
        </section>
      )}
    </div>
  )
}
