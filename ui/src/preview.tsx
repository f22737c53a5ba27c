/**
 * Compaction preview: a conversation in (pasted or uploaded; an agent log through POST
 * /import), a dry run of POST /compact for the plan, then the same request without a
 * sessionId for the summary. Nothing is stored: neither request names a session.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, fmtInt } from './api.ts'
import { Markdown } from './markdown.tsx'
import { clip, display } from './messages.ts'
import { ACTION_LABEL, rowsOf, type Action, type CompactResult, type Estimate, type Row, type SummaryRow } from './preview-rows.ts'

/** Where the model came from: the user's choice, the uploaded log, or the server's DEFAULT_MODEL. */
type ModelSource = 'chosen' | 'log' | 'default'
const MODEL_SOURCE: Record<ModelSource, string> = { chosen: 'as chosen', log: "the uploaded log's model", default: "the server's default model" }

interface Outcome {
  rows: Row[]
  summaryRow: SummaryRow | null
  dry: CompactResult
  real: CompactResult | null
  before: number
  model: string
  modelSource: ModelSource
}

/** GET /strategies: the server's registry of compaction strategies and the pipelines it offers. */
interface StrategiesInfo {
  strategies: { name: string; description: string; needsLlm: boolean }[]
  default: string[]
  pipelines: string[][]
}

/** GET /formats: the message formats the server reads, for the input menu. */
interface FormatsInfo {
  formats: { name: string; label: string }[]
}

/** One choice of the strategy menu; without `strategy` the request names none (the server's default). */
interface MenuEntry {
  label: string
  title: string
  strategy?: string[]
}

/** Until GET /strategies answers (or on a server without it): the server's default pipeline. */
const SERVER_DEFAULT: MenuEntry[] = [{ label: 'server default', title: "the server's COMPACTION_DEFAULT_STRATEGY" }]

function menuOf(info: StrategiesInfo): MenuEntry[] {
  const described = new Map(info.strategies.map((s) => [s.name, `${s.name}: ${s.description}${s.needsLlm ? ' (needs a summarizer model configured on the server)' : ''}`]))
  return info.pipelines.map((p) => ({
    label: `${p.join(' + ')}${p.join() === info.default.join() ? ' (default)' : ''}`,
    title: p.map((name) => described.get(name) ?? name).join('\n'),
    strategy: p,
  }))
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

/** "1, 4 7" → [1, 4, 7]: the pin field's indices (anything else is left out). */
function pinList(text: string): number[] {
  return text
    .split(/[\s,]+/)
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
}

export function Preview() {
  const [text, setText] = useState('')
  const [kind, setKind] = useState('auto')
  // Empty unless the user types one: then an agent log's own model (as the CLI counts it), else the server's default.
  const [model, setModel] = useState('')
  const [budget, setBudget] = useState('')
  const [menu, setMenu] = useState(SERVER_DEFAULT)
  const [formats, setFormats] = useState<FormatsInfo['formats']>([])
  const [strategy, setStrategy] = useState(0)
  const [keepRecent, setKeepRecent] = useState('10')
  // Issue 24's controls: pinned message indices ("2, 5") and an additive focus.
  const [pins, setPins] = useState('')
  const [focus, setFocus] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [out, setOut] = useState<Outcome | null>(null)

  useEffect(() => {
    api<StrategiesInfo>('/strategies')
      .then((info) => setMenu(menuOf(info)))
      .catch(() => {}) // an older server: its default pipeline only
    api<FormatsInfo>('/formats')
      .then((info) => setFormats(info.formats))
      .catch(() => {}) // an older server: detection only
  }, [])

  async function run(e: Event) {
    e.preventDefault()
    setBusy(true)
    setError(null)
    setOut(null)
    try {
      let conv: { messages: unknown[]; system?: unknown }
      let format: string | undefined
      let logModel: string | undefined
      if (kind === 'agent-log') {
        try {
          const imported = await api<{ messages: unknown[]; system?: unknown; format: string; session: { model?: string } }>('/import', { method: 'POST', body: { log: text } })
          conv = imported.system !== undefined ? { messages: imported.messages, system: imported.system } : { messages: imported.messages }
          format = imported.format
          logModel = imported.session.model
        } catch (err) {
          if (err instanceof ApiError && err.status === 404 && err.code !== 'not_found') throw err
          if (err instanceof ApiError && err.status === 404) throw new Error('This server has no POST /import: paste the conversation as messages instead.')
          throw err
        }
      } else {
        conv = parseInput(text)
        if (kind !== 'auto') format = kind
      }
      const chosen = model.trim()
      const modelSource: ModelSource = chosen ? 'chosen' : logModel ? 'log' : 'default'
      const modelField = chosen || logModel ? { model: chosen || logModel } : {}
      const common = {
        messages: conv.messages,
        ...(conv.system !== undefined ? { system: conv.system } : {}),
        ...(format ? { format } : {}),
        ...modelField,
        ...(budget ? { targetTokens: Number(budget) } : {}),
        ...(keepRecent !== '' ? { keepRecent: Number(keepRecent) } : {}),
        ...(menu[strategy]?.strategy ? { strategy: menu[strategy].strategy } : {}),
        ...(pinList(pins).length ? { pin: pinList(pins) } : {}),
        ...(focus.trim() ? { focus: focus.trim() } : {}),
        force: true,
      }
      const estimate = await api<Estimate>('/estimate', { method: 'POST', body: { messages: conv.messages, ...(conv.system !== undefined ? { system: conv.system } : {}), ...(format ? { format } : {}), ...modelField } })
      const dry = await api<CompactResult>('/compact', { method: 'POST', body: { ...common, dryRun: true } })
      // The summary itself: the same request, not a dry run, and without a sessionId (nothing stored).
      const real = dry.plan.some((p) => p.action !== 'keep') ? await api<CompactResult>('/compact', { method: 'POST', body: common }) : null
      const afterEstimate = real?.compacted ? await api<Estimate>('/estimate', { method: 'POST', body: { messages: real.messages, ...(real.system !== undefined ? { system: real.system } : {}), format: real.format, model: real.model } }) : null
      const result = real ?? dry
      const [input, output] = await Promise.all([display({ messages: conv.messages, format: result.format, system: conv.system }), display({ messages: result.messages, format: result.format })])
      const { rows, summary } = rowsOf(conv.messages, estimate, result, afterEstimate, { input: input.messages, output: output.messages })
      setOut({ rows, summaryRow: summary, dry, real, before: estimate.totalTokens, model: estimate.model, modelSource })
    } catch (err) {
      setError((err as Error).message)
    } finally {
      setBusy(false)
    }
  }

  async function upload(e: Event) {
    const file = (e.currentTarget as HTMLInputElement).files?.[0]
    if (!file) return
    // Agent logs are JSON Lines; a messages array is one JSON document.
    if (kind === 'auto' && /\.jsonl$/i.test(file.name)) setKind('agent-log')
    setText(await file.text())
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
            {formats.map((f) => (
              <option key={f.name} value={f.name}>
                {f.label} messages ({f.name})
              </option>
            ))}
            <option value="agent-log">agent log (POST /import)</option>
          </select>
        </div>
        <div class="toolbar">
          <label for="opt-model">Model</label>
          <input id="opt-model" value={model} placeholder="the log's, else the server's default" size={30} onInput={(e) => setModel(e.currentTarget.value)} />
          <label for="opt-budget">Budget (tokens)</label>
          <input id="opt-budget" type="number" min={1} placeholder="model threshold" value={budget} onInput={(e) => setBudget(e.currentTarget.value)} />
          <label for="opt-strategy">Strategy</label>
          <select id="opt-strategy" value={String(strategy)} title={menu[strategy]?.title} onChange={(e) => setStrategy(Number(e.currentTarget.value))}>
            {menu.map((entry, k) => (
              <option value={String(k)} title={entry.title}>
                {entry.label}
              </option>
            ))}
          </select>
          <label for="opt-keep">keepRecent</label>
          <input id="opt-keep" type="number" min={0} value={keepRecent} onInput={(e) => setKeepRecent(e.currentTarget.value)} />
        </div>
        <div class="toolbar">
          <label for="opt-pin">Pin (message indices)</label>
          <input id="opt-pin" value={pins} placeholder="e.g. 1, 4" size={12} title="Kept verbatim, byte for byte, with their tool pairs; a 422 when the budget cannot hold them" onInput={(e) => setPins(e.currentTarget.value)} />
          <label for="opt-focus">Focus</label>
          <input id="opt-focus" value={focus} placeholder="what the summary should give room to" size={40} onInput={(e) => setFocus(e.currentTarget.value)} />
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

function PreviewResult({ rows, summaryRow, dry, real, before, model, modelSource }: Outcome) {
  const counts = rows.reduce<Record<string, number>>((a, r) => ((a[r.action] = (a[r.action] ?? 0) + 1), a), {})
  const final = real ?? dry
  // The summary message sits where the summarised messages were: before the first of them.
  const summaryAt = summaryRow ? Math.max(0, rows.findIndex((r) => r.action === 'summarize')) : -1
  return (
    <div data-testid="preview-result">
      <p class="figures">
        {fmtInt(rows.length)} messages, <span data-testid="preview-tokens-before">{fmtInt(before)}</span> tokens for{' '}
        <span data-testid="preview-model">
          <b>{model}</b> ({MODEL_SOURCE[modelSource]})
        </span>
        . Dry run: {fmtInt(dry.event.tokensBefore)} → about {fmtInt(dry.event.tokensAfter)} tokens (budget {fmtInt(dry.targetTokens)}).
        {real && (real.compacted ? ` Compacted: ${fmtInt(real.event.tokensBefore)} → ${fmtInt(real.event.tokensAfter)} tokens (×${real.event.compressionRatio}), strategy ${real.strategy}, ${real.event.durationMs} ms.` : ` Not compacted: ${real.reason ?? ''}`)}
        {!real && ` ${dry.reason ?? ''}`}
      </p>
      {final.contract && (
        <p class="muted" data-testid="preview-contract">
          Contract kept: {final.contract.pinned.length ? `pinned messages ${final.contract.pinned.join(', ')}` : 'no pins'}
          {final.contract.preserved.length ? `; strings ${final.contract.preserved.join(', ')}` : ''}.
        </p>
      )}
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
            <th scope="col">What the model receives</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, k) => (
            <>
              {k === summaryAt && summaryRow && <SummaryTableRow row={summaryRow} />}
              <tr data-index={r.index} data-action={r.action}>
                <td>{r.index}</td>
                <td>{r.role}</td>
                <td>
                  <span class={`badge act-${r.action}`}>{ACTION_LABEL[r.action]}</span> <span class="muted">{r.reason}</span>
                </td>
                <td class="num">{fmtInt(r.before)}</td>
                <td class="num">{r.after === null ? '–' : fmtInt(r.after)}</td>
                <td class="content">
                  <ReceivedContent row={r} />
                </td>
              </tr>
            </>
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

/** The output message's text; the input behind a disclosure whenever the two differ. */
function ReceivedContent({ row }: { row: Row }) {
  const none = row.action === 'summarize' ? 'nothing: folded into the summary message' : row.action === 'drop' ? 'nothing: not in the output' : 'its output message could not be matched'
  return (
    <>
      {row.output !== null ? <div class="received">{clip(row.output, 160)}</div> : <div class="received muted">{none}</div>}
      {row.output !== row.input && (
        <details class="original">
          <summary>original</summary>
          <div>{clip(row.input, 2000)}</div>
        </details>
      )}
    </>
  )
}

function SummaryTableRow({ row }: { row: SummaryRow }) {
  return (
    <tr data-summary-row="true">
      <td>new</td>
      <td>{row.role}</td>
      <td>
        <span class="badge act-summarize">summary message</span> <span class="muted">stands for the summarised messages</span>
      </td>
      <td class="num">–</td>
      <td class="num">{row.tokens === null ? '–' : fmtInt(row.tokens)}</td>
      <td class="content">
        <div class="received">{clip(row.text, 160)}</div>
        <span class="muted">(whole text below)</span>
      </td>
    </tr>
  )
}
