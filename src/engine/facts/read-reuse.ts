/**
 * A read with nothing learned adds nothing to the Completed Work table (issue 22). A file
 * the agent only read earns a row when something of what it read was used afterwards:
 * an identifier, a qualified name or a number that first appeared in that read's output
 * and that the agent later wrote in its own words or in a tool call's arguments, or the
 * file's name in the agent's later prose. Reuse is the evidence that the read mattered.
 * A read without it stays a line of the action log, where reads are (ranked last).
 *
 * Serves exploring sessions (a Codex review of 19 files, an agent opening every module
 * "for context"): their table was rows of `read` with an empty "What changed" column,
 * crowding out what was learned and done.
 */
import type { ConversationEvent } from './events.ts'

/** A read: where its output is, which files it read, and what it returned. */
export interface ReadCall {
  /** Index of the event holding its output (events, not messages: one message may hold several results). */
  event: number
  paths: readonly string[]
  output: string
}

/**
 * Distinctive tokens: qualified names (`a.b`, `x.py`), identifiers with an underscore or
 * an inner capital (`load_config`, `ExportJob`, `MAX_RETRIES`), numbers of three digits or
 * more (`30000`, `0.105`). Plain words and short numbers (line numbers) are not evidence.
 */
const TOKEN_RE = /[A-Za-z_$][\w$]*(?:[.:][A-Za-z_$][\w$]*)+|[A-Za-z_$][\w$]{3,}|\d[\d_.,]{1,}\d/g

/** Characters of an output read for tokens: the rest of a huge output adds cost, not evidence. */
const MAX_SCAN_CHARS = 200_000

function tokensOf(text: string): Set<string> {
  const out = new Set<string>()
  for (const m of text.slice(0, MAX_SCAN_CHARS).matchAll(TOKEN_RE)) {
    const t = m[0]
    if (isDigit(t.charCodeAt(0))) {
      if (t.replace(/\D/g, '').length >= 3) out.add(t.replace(/[_,]/g, ''))
    } else if (t.length >= 5 && (/[._:]/.test(t) || /[a-z][A-Z]/.test(t))) out.add(t)
  }
  return out
}

const isDigit = (c: number) => c >= 48 && c <= 57

const basename = (p: string) => p.replace(/\/+$/, '').split('/').pop() ?? p

/** Text the agent wrote or sent: prose (reasoning included) and tool-call arguments. */
function agentText(e: ConversationEvent): { prose?: string; args?: string } | undefined {
  if (e.kind === 'assistant') return { prose: e.text }
  if (e.kind === 'tool-call') return { args: e.call.argsText }
  if (e.kind === 'text-command') return { args: e.command }
  return undefined
}

/** Text that reached the agent from elsewhere: the user, the harness, tool outputs. */
function incomingText(e: ConversationEvent): string | undefined {
  if (e.kind === 'instruction' || e.kind === 'harness') return e.text
  if (e.kind === 'earlier-summary') return e.summary.text
  if (e.kind === 'tool-output') return e.result.text
  if (e.kind === 'text-command') return e.output
  return undefined
}

/**
 * The paths of `reads` whose output the agent used afterwards (see the module's comment).
 * `later` are the events after the range (the kept tail): a use there counts too.
 */
export function pathsLearnedFrom(events: readonly ConversationEvent[], reads: readonly ReadCall[], later: readonly ConversationEvent[] = []): Set<string> {
  const learned = new Set<string>()
  if (reads.length === 0) return learned
  const all = [...events, ...later]
  // Where the agent last used each token (in prose or in arguments), and first wrote it.
  const lastUsed = new Map<string, number>()
  const lastSaid = new Map<string, number>()
  const firstSeen = new Map<string, number>()
  all.forEach((e, k) => {
    const own = agentText(e)
    if (!own) return
    for (const t of tokensOf(own.prose ?? own.args!)) {
      if (!firstSeen.has(t)) firstSeen.set(t, k)
      lastUsed.set(t, k)
      if (own.prose !== undefined) lastSaid.set(t, k)
    }
  })
  // Where each token the agent used first reached it (only those can show a read was used;
  // a token written in the same event as an output counts from there too, as before). A
  // read's own output is tokenized whole, once, for the check below; other texts are only
  // looked up.
  const readAt = new Set(reads.map((r) => r.event))
  const readTokens = new Map<number, Set<string>>()
  const seen = (t: string, k: number) => {
    const at = firstSeen.get(t)
    if (at !== undefined && k < at) firstSeen.set(t, k)
  }
  // A sighting after the last read changes no read's verdict: the scan stops there.
  const lastRead = reads.reduce((m, r) => Math.max(m, r.event), -1)
  all.forEach((e, k) => {
    const incoming = k <= lastRead ? incomingText(e) : undefined
    if (!incoming) return
    if (readAt.has(k)) {
      const tokens = tokensOf(incoming)
      readTokens.set(k, tokens)
      for (const t of tokens) seen(t, k)
    } else {
      // Only tokens the agent used are in firstSeen, all distinctive: a lookup is the filter.
      for (const m of incoming.slice(0, MAX_SCAN_CHARS).matchAll(TOKEN_RE)) seen(isDigit(m[0].charCodeAt(0)) ? m[0].replace(/[_,]/g, '') : m[0], k)
    }
  })
  for (const r of reads) {
    let used = r.paths.some((p) => (lastSaid.get(basename(p)) ?? -1) > r.event)
    if (!used) {
      for (const t of readTokens.get(r.event) ?? tokensOf(r.output)) {
        if (firstSeen.get(t) === r.event && (lastUsed.get(t) ?? -1) > r.event) {
          used = true
          break
        }
      }
    }
    if (used) for (const p of r.paths) learned.add(p)
  }
  return learned
}

/** Whether `path` (as a file fate spells it) is one of `paths` (as the calls spelled it: relative or absolute). */
export function samePathIn(path: string, paths: ReadonlySet<string>): boolean {
  if (paths.has(path)) return true
  for (const p of paths) if (p.endsWith(`/${path}`) || path.endsWith(`/${p}`)) return true
  return false
}
