/**
 * Rule-based condensation of messages that stay in the conversation (the `rules`
 * strategy's per-message form, used with `mask`): tool results masked to a digest,
 * large tool inputs cut to what identifies them (a command's first line, a path), and
 * long assistant prose cut to its first sentence plus its decision, root-cause and
 * next-step sentences. The structure stays, so every call keeps its result, and the
 * facts an agent needs (files, commands, exit codes, errors) stay where they were.
 */
import type { FormatAdapter } from '../../messages/adapter.ts'
import { toolCallsOf, type CanonicalMessage } from '../../messages/canonical.ts'
import type { TokenCounter } from '../../tokens/count.ts'
import { isKeySentence } from '../../facts/reasoning.ts'
import { fitDeliverable, isAnswerMessage } from '../../facts/deliverable.ts'
import { splitSentences } from '../../facts/text.ts'
import { clip, parseArgs, stripHeredocBodies } from '../../facts/tools.ts'
import { MASK_PREFIX, maskRange, type MaskOptions } from './mask.ts'
import { canonicalArgs } from '../../conversation/segments.ts'

/** Tool inputs above this many tokens are cut down. */
const INPUT_TOKENS_KEPT = 60
/** Assistant prose above this many tokens is condensed. */
const PROSE_TOKENS_KEPT = 60
const PROSE_CHARS = 320
/**
 * An answer to a review, analysis or research request (facts/deliverable.ts) keeps this
 * much, whole or in its structured form: it is the work product, and a first sentence of it
 * says nothing of its findings.
 */
const ANSWER_TOKENS_KEPT = 600
const VALUE_CHARS = 160

function condenseArgs(argsText: string): string {
  const args = parseArgs(argsText)
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(args)) {
    if (typeof v !== 'string') {
      const json = JSON.stringify(v)
      out[k] = json && json.length > VALUE_CHARS ? `${clip(json, VALUE_CHARS)}` : v
      continue
    }
    if (/^(command|cmd|script)$/.test(k)) {
      // Keep the command itself; drop heredoc bodies and later lines.
      const lines = stripHeredocBodies(v).split('\n')
      const dropped = v.split('\n').length - 1
      out[k] = lines[0]!.length > 300 ? clip(lines[0]!, 300) : lines[0]! + (dropped > 0 ? ` … [${dropped} more lines omitted]` : '')
    } else if (v.length > VALUE_CHARS) {
      out[k] = `${clip(v, VALUE_CHARS)} [${v.split('\n').length} lines]`
    } else out[k] = v
  }
  out._compacted = MASK_PREFIX
  return JSON.stringify(out)
}

function condenseProse(text: string): string {
  // Code blocks are dropped by the shared splitter; the marker says one was there.
  const sentences = splitSentences(text.replace(/```[\s\S]*?```/g, '\n[code omitted]\n'))
  const keep: string[] = []
  let used = 0
  sentences.forEach((s, i) => {
    if (used > PROSE_CHARS) return
    if (i === 0 || isKeySentence(s)) {
      const c = clip(s, 200)
      keep.push(c)
      used += c.length
    }
  })
  return `${keep.join(' ')} [condensed]`
}

export function condenseRange(
  all: readonly CanonicalMessage[],
  from: number,
  to: number,
  adapter: FormatAdapter,
  counter: TokenCounter,
  opts: MaskOptions,
  exempt: ReadonlySet<string>,
): CanonicalMessage[] {
  const masked = maskRange(all, from, to, adapter, counter, opts, exempt).messages
  return masked.map((m, k) => {
    if (m.role !== 'assistant') return m
    let out = m
    for (const c of toolCallsOf(out)) {
      if (c.argsText.includes(MASK_PREFIX) || counter.text(canonicalArgs(c.argsText)) <= INPUT_TOKENS_KEPT) continue
      if (opts.excludeTools.some((t) => t.toLowerCase() === c.name.toLowerCase())) continue
      out = adapter.withToolCallArgs(out, c.id, condenseArgs(c.argsText))
    }
    const text = out.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).join('\n')
    if (text && !text.endsWith('[condensed]') && counter.text(text) > PROSE_TOKENS_KEPT) {
      if (isAnswerMessage(all, from + k)) {
        if (counter.text(text) > ANSWER_TOKENS_KEPT) out = adapter.withText(out, `${fitDeliverable(text, ANSWER_TOKENS_KEPT, (s) => counter.text(s))} [condensed]`)
      } else out = adapter.withText(out, condenseProse(text))
    }
    return out
  })
}
