/** updateSummary end to end (src/engine/sessions/update.ts): a real pi session fed in batches, then aged out. */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { extractHandover } from '../../../src/engine/facts/handover.ts'
import { parseConversation } from '../../../src/engine/messages/index.ts'
import {
  ageSummary,
  emptySummary,
  exchangeTime,
  groupExchanges,
  parseSummary,
  renderSummary,
  SECTION_KEYS,
  SECTION_TITLES,
  sectionForAge,
  SESSION_MAX_AGE_MS,
  updateSummary,
  WEEK_MAX_AGE_MS,
  YESTERDAY_MAX_AGE_MS,
} from '../../../src/engine/sessions/index.ts'
import { CONVERSATIONS, conversationKindSkip, fixtureFiles } from '../../helpers/fixtures.ts'
import { counter, iso } from './helpers.ts'

/** A pi session: OpenAI-shaped messages that all carry an ISO timestamp, with tool calls. */
function findPiSession(): { file: string; messages: unknown[] } | undefined {
  const found: { file: string; messages: unknown[] }[] = []
  for (const file of fixtureFiles()) {
    const data = JSON.parse(fs.readFileSync(path.join(CONVERSATIONS, file), 'utf8')) as { messages?: Record<string, unknown>[] }
    const ms = data.messages
    if (!Array.isArray(ms) || ms.length < 20) continue
    const hasIso = (m: Record<string, unknown>) => typeof m.timestamp === 'string' && /^\d{4}-\d\d-\d\dT/.test(m.timestamp)
    // Every user and assistant turn stamped (a stray tool result may lack one).
    const stamped = ms.every((m) => (m.role !== 'user' && m.role !== 'assistant') || hasIso(m))
    if (stamped && ms.some((m) => Array.isArray(m.tool_calls))) found.push({ file, messages: ms })
  }
  // pi sessions first (pinion05's agent-complex-task set), the one with most turns; else any stamped session.
  const turns = (f: { messages: unknown[] }) => f.messages.filter((m) => (m as { role?: string }).role === 'user').length
  const pis = found.filter((f) => f.file.startsWith('pinion')).sort((a, b) => turns(b) - turns(a))
  return pis[0] ?? found[0]
}

const pi = findPiSession()

t.test('a real pi session in batches of 4', { skip: conversationKindSkip('pi session (20 or more messages, with tool calls, every user and assistant turn with an ISO timestamp)', pi !== undefined) }, async (t) => {
  const { file, messages } = pi!
  const conv = parseConversation(messages, { format: 'openai' })
  const exchanges = groupExchanges(conv.messages)
  t.ok(exchanges.length >= 8, `${file}: ${exchanges.length} exchanges`)
  const fed = exchanges.slice(0, Math.min(exchanges.length, 24))
  for (const budget of [10_000, 1_500]) {
    let doc = emptySummary()
    let last: ReturnType<typeof updateSummary> | undefined
    let now = 0
    for (let i = 0; i < fed.length; i += 4) {
      const batch = fed.slice(i, i + 4)
      now = Date.parse(exchangeTime(batch[batch.length - 1]!) ?? iso(now))
      last = updateSummary({ doc, exchanges: batch, now, budgetTokens: budget, counter })
      t.ok(last.tokens <= budget, `${file} @${budget}, batch ${i / 4}: ${last.tokens} tokens`)
      doc = last.doc
    }
    const res = last!
    // At 1,500 tokens a session where every exchange carries a user instruction (high on
    // the shared scale) may need the emergency step; the newest work survives it.
    if (budget === 10_000) t.notOk(res.emergencyTruncated, `budget ${budget} reached by compression alone`)
    else t.ok(res.doc.sections.session.some((i) => i.at === exchangeTime(fed.at(-1)!)), 'the newest exchange survives')
    t.equal(res.text, renderSummary(res.doc))
    t.equal(renderSummary(parseSummary(res.text, now)), res.text, 'well formed: parses back to itself')
    // A section is rendered exactly when it holds items: no empty headings.
    for (const key of SECTION_KEYS) t.equal(res.text.includes(`## ${SECTION_TITLES[key]}\n`), res.doc.sections[key].length > 0, `${key}: heading iff items`)
    const items = SECTION_KEYS.flatMap((k) => res.doc.sections[k])
    t.ok(items.length > 0)
    for (const it of items) {
      t.ok(it.text.length > 0 && !it.text.includes('\n'), 'one-line item')
      t.ok(Number.isFinite(Date.parse(it.at)) && Date.parse(it.at) <= now, 'timestamped, not in the future')
    }
    t.ok(res.doc.continuation.currentTask.length > 0, 'continuation has a task')

    // Files and errors of the fed part are named.
    const facts = extractHandover(fed.flatMap((e) => e.messages), { preserveErrorDetails: false })
    const changed = facts.files.filter((f) => f.fate === 'edited' || f.fate === 'created').map((f) => f.path.split('/').pop()!)
    t.ok(changed.some((name) => res.text.includes(name)), `names a changed file (${changed.slice(0, 5).join(', ')})`)
    if (budget === 10_000) {
      const errors = facts.failures.map((f) => f.errorLine.slice(0, 30))
      t.ok(errors.length === 0 || errors.some((e) => res.text.includes(e)), `names an error of the fed part (${errors.length} failures)`)
      t.ok(facts.failures.length > 0 && res.text.includes('failed'), 'a failing command is named')
    }

    // Re-aging as the session moves on (its latest activity later and later): every item
    // lands where its own age says, and all but the pinned ones (the original task, standing
    // constraints) are gone after 14 days.
    const lastAt = Math.max(...items.map((i) => Date.parse(i.at)))
    const pinned = items.filter((i) => i.pin)
    const tasks = items.filter((i) => i.pin === 'task')
    if (budget === 10_000) t.equal(tasks.length, 1, 'the original task is pinned')
    else t.ok(tasks.length <= 1, 'at most one original task')
    let aged = res.doc
    let droppedByAge = 0
    for (const later of [SESSION_MAX_AGE_MS + 1, YESTERDAY_MAX_AGE_MS + 1, WEEK_MAX_AGE_MS + 1]) {
      const day = lastAt + later
      const r = ageSummary({ doc: aged, now: day, activityAt: day, budgetTokens: budget, counter })
      t.ok(r.tokens <= budget)
      for (const k of SECTION_KEYS) for (const it of r.doc.sections[k]) t.equal(sectionForAge(day - Date.parse(it.at)) ?? (it.pin ? 'week' : undefined), k, `aged to ${k}`)
      t.equal(r.doc.sections.session.length, 0, `nothing left in the session ${later} ms after the last exchange`)
      t.same(ageSummary({ doc: aged, now: day, budgetTokens: budget, counter }).doc, aged, 'the clock alone ages nothing: an idle session keeps its summary')
      droppedByAge += r.dropped
      aged = r.doc
    }
    t.same(SECTION_KEYS.flatMap((k) => aged.sections[k]).map((i) => i.text), pinned.map((i) => i.text), 'after 14 days only the pinned items are left')
    t.equal(droppedByAge, items.length - pinned.length, 'each drop counted once')
  }
})
