/**
 * Step "units": the conversation as segments (conversation/segments.ts) with what each
 * holds, and where the verbatim head and tail end. The head is the system prompt and
 * the original task; the tail the last `keepRecent` messages (counted as OpenAI chat
 * would send them) or `keepRecentTokens`. Both are decided on segments, so every format
 * gets the same boundaries.
 */
import type { CanonicalMessage } from '../messages/canonical.ts'
import { computeUnits } from '../conversation/pairing.ts'
import { neutralMessageCount, segmentsOf, type NeutralCounter, type Segment } from '../conversation/segments.ts'
import { classifyUserText } from '../facts/classify.ts'
import { classifyMessages, type ConversationEvent } from '../facts/events.ts'

export interface SegmentInfo extends Segment {
  messages: CanonicalMessage[]
  /** Planning tokens, verbatim. */
  tokens: number
  instruction: boolean
  earlierSummary: boolean
  toolWork: boolean
  systemOnly: boolean
  /** Kept verbatim, byte for byte, wherever it sits: a system message, or one holding a message the caller pinned (issue 24). */
  pinned: boolean
}

export interface Layout {
  segments: SegmentInfo[]
  events: ConversationEvent[]
  /** Segments [0, headEnd) are the head. */
  headEnd: number
  /** Segment where the configured tail begins. */
  tailStart: number
}

/**
 * Anthropic merges consecutive user turns into one message: the task and an earlier
 * compaction summary sent after it (Claude Code's "This session is being continued…",
 * Codex's handoff, compactd's own) arrive as two text blocks of one message, where OpenAI
 * and the AI SDK have two messages. Such a message is split here into one message per run
 * of blocks (the summary's own, and the rest), each keeping the input's index, so that the
 * head keeps the task and the summary is folded in, as in the other formats. The output
 * is still valid: the Anthropic serializer merges consecutive user messages again.
 */
export function splitMergedTurns(messages: readonly CanonicalMessage[]): CanonicalMessage[] {
  let out: CanonicalMessage[] | undefined
  messages.forEach((m, i) => {
    const parts = m.role === 'user' && m.parts.length > 1 && m.parts.every((p) => p.type === 'text' || p.type === 'image') ? m.parts : undefined
    const isSummary = parts?.map((p) => p.type === 'text' && classifyUserText(p.text).kind === 'earlier-summary')
    if (!parts || !isSummary!.includes(true) || isSummary!.every(Boolean)) {
      out?.push(m)
      return
    }
    // The caller's Anthropic object is sent back as it came (raw): each piece gets its own
    // blocks of it, so the earlier summary does not come back verbatim with the task.
    const raw = m.raw as { content?: unknown } | undefined
    const blocks = raw && Array.isArray(raw.content) && raw.content.length === parts.length ? raw.content : undefined
    if (m.raw !== undefined && !blocks) {
      out?.push(m)
      return
    }
    out ??= messages.slice(0, i)
    let from = 0
    parts.forEach((_, k) => {
      if (k === parts.length - 1 || isSummary![k + 1] !== isSummary![k]) {
        out!.push({ ...m, parts: parts.slice(from, k + 1), ...(blocks ? { raw: { ...raw, content: blocks.slice(from, k + 1) } } : {}) })
        from = k + 1
      }
    })
  })
  return out ?? (messages as CanonicalMessage[])
}

export function layoutOf(messages: readonly CanonicalMessage[], nc: NeutralCounter, opts: { keepFirst: number; keepRecent: number; keepRecentTokens?: number; pin?: readonly number[] }): Layout {
  const pins = new Set(opts.pin ?? [])
  const events = classifyMessages(messages)
  // An earlier summary that is a whole message is folded in on its own, never merged with the task beside it.
  const wholeSummaries = new Set<number>()
  for (const e of events) if (e.kind === 'earlier-summary' && messages[e.position]!.parts.every((p) => p.type === 'text')) wholeSummaries.add(e.position)
  const segments: SegmentInfo[] = segmentsOf(messages, computeUnits(messages), wholeSummaries).map((s) => {
    const ms = messages.slice(s.start, s.end + 1)
    const systemOnly = s.side === 'system'
    // A pin keeps its whole segment: a tool call comes with its results, a result with its call.
    return { ...s, messages: ms, tokens: nc.tokens(ms), instruction: false, earlierSummary: false, toolWork: false, systemOnly, pinned: systemOnly || (pins.size > 0 && ms.some((m) => pins.has(m.index))) }
  })
  let si = 0
  for (const e of events) {
    while (segments[si]!.end < e.position) si++
    const seg = segments[si]!
    if (e.kind === 'instruction') seg.instruction = true
    else if (e.kind === 'earlier-summary') seg.earlierSummary = true
    else if (e.kind === 'tool-call' || e.kind === 'text-command') seg.toolWork = true
  }
  const headEnd = headEndOf(segments, opts.keepFirst)
  return { segments, events, headEnd, tailStart: tailStartOf(segments, headEnd, opts) }
}

/**
 * Leading system segments, then segments up to the keepFirst-th one holding a human
 * instruction — unless an earlier summary or tool work comes first: the task then lives
 * in that earlier summary, and the head keeps only the system prompt.
 */
function headEndOf(segments: readonly SegmentInfo[], keepFirst: number): number {
  let k = 0
  while (k < segments.length && segments[k]!.systemOnly) k++
  if (keepFirst <= 0) return k
  let found = 0
  for (let j = k; j < segments.length; j++) {
    const s = segments[j]!
    if (s.earlierSummary || s.toolWork) return k
    if (s.instruction && ++found >= keepFirst) return j + 1
  }
  return k
}

function tailStartOf(segments: readonly SegmentInfo[], headEnd: number, o: { keepRecent: number; keepRecentTokens?: number }): number {
  let start = segments.length
  if (o.keepRecentTokens !== undefined) {
    let used = 0
    while (start > headEnd && used + segments[start - 1]!.tokens <= o.keepRecentTokens) used += segments[--start]!.tokens
    return start
  }
  let kept = 0
  while (start > headEnd && kept < o.keepRecent) kept += neutralMessageCount(segments[--start]!.messages)
  return start
}
