/**
 * The evicted exchanges of one update, read once by the engine's shared extraction and
 * split back per exchange.
 *
 * The batch is read as ONE range (facts/handover.ts, over facts/events.ts): one artifact
 * tracker sees every call, so a script written in one exchange and run in a later one is
 * seen to edit the files it writes, and a failure a later exchange fixed is resolved.
 * Each exchange then takes what lies in its own message positions: its instructions
 * (human words only, harness text split off), earlier compaction summaries, tool digests
 * (folded into file fates), failures, conclusions (facts/reasoning.ts) and plan.
 */
import { foldFileFates, type FileFate } from '../facts/artifacts.ts'
import type { EarlierSummary } from '../facts/earlier-summary.ts'
import { classifyMessages } from '../facts/events.ts'
import { extractHandover, type FailureFact, type HandoverFacts } from '../facts/handover.ts'
import { planFromToolCall, type PlanItem } from '../facts/plan-tools.ts'
import { conclusionsOf } from '../facts/reasoning.ts'
import type { ToolDigest } from '../facts/tools.ts'
import type { Finding } from '../facts/findings/index.ts'
import { compactArgs } from '../conversation/segments.ts'
import type { Exchange } from './exchanges.ts'

export interface ExchangeFacts {
  /** Position of the exchange's first message in the batch. */
  start: number
  /** One past its last message. */
  end: number
  /** The human's own words, in order (no harness text). */
  instructions: { position: number; text: string }[]
  earlier: { position: number; summary: EarlierSummary }[]
  tools: { position: number; digest: ToolDigest; printedError?: string }[]
  /** Final fate of each file the exchange's calls touched. */
  files: FileFate[]
  /** Failures whose (latest) run is in this exchange; resolvedAt may lie in a later one. */
  failures: FailureFact[]
  rootCauses: string[]
  decisions: string[]
  abandoned: string[]
  /** Stated next steps, in order. */
  intents: string[]
  /** The latest plan the exchange's todo tool wrote. */
  plan?: PlanItem[]
  /** The agent's last prose (not reasoning) in the exchange. */
  lastText?: string
  /** What the agent learned in the exchange, best first (read over the whole batch: a line's reuse may come in a later exchange). */
  findings: Finding[]
}

export interface BatchReading {
  exchanges: ExchangeFacts[]
  /** The whole batch's facts: latest plan, last open intent, commands. */
  batch: HandoverFacts
}

export function readExchanges(exchanges: readonly Exchange[]): BatchReading {
  const all = exchanges.flatMap((e) => e.messages)
  const batch = extractHandover(all, { preserveErrorDetails: true })
  const events = classifyMessages(all)
  const out: ExchangeFacts[] = []
  let start = 0
  for (const e of exchanges) {
    const end = start + e.messages.length
    const inside = (p: number) => p >= start && p < end
    const x: ExchangeFacts = { start, end, instructions: [], earlier: [], tools: [], files: [], failures: [], rootCauses: [], decisions: [], abandoned: [], intents: [], findings: [] }
    for (const ev of events) {
      if (!inside(ev.position)) continue
      if (ev.kind === 'instruction') x.instructions.push({ position: ev.position, text: ev.text.trim() })
      else if (ev.kind === 'earlier-summary') x.earlier.push({ position: ev.position, summary: ev.summary })
      else if (ev.kind === 'assistant' && !ev.reasoning) {
        x.lastText = ev.text
        for (const c of conclusionsOf(ev.text, ev.acted)) {
          const list = c.kind === 'root-cause' ? x.rootCauses : c.kind === 'decision' ? x.decisions : c.kind === 'abandoned' ? x.abandoned : x.intents
          if (!list.includes(c.text)) list.push(c.text)
        }
      } else if (ev.kind === 'tool-call') {
        const plan = planFromToolCall(ev.call.name, compactArgs(ev.call.argsText))
        if (plan) x.plan = plan
      }
    }
    x.tools = batch.tools.filter((t) => inside(t.position))
    x.files = foldFileFates(x.tools.flatMap((t) => t.digest.changes.map((c) => ({ ...c, index: t.position }))))
    x.failures = batch.failures.filter((f) => inside(f.position))
    x.findings = batch.findings.filter((f) => inside(f.position))
    out.push(x)
    start = end
  }
  return { exchanges: out, batch }
}
