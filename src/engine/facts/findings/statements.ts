/**
 * The agent's own statements of a result, in its own words: "`_has_init` returns None
 * for a namespace package", "the cause is …", "found 4 backends", "the correct value is
 * 34", "X warns because …, whereas Y …", "the value comes from settings.py". Musings,
 * questions and plans ("let me", "I will", "maybe") are not results and stay out, as
 * root causes, decisions and abandoned attempts do (they have their own lines:
 * reasoning.ts).
 *
 * Serves a code investigation (how code behaves, stated after reading it), a research
 * session (a value the agent settled on) and a debugging session (why one case fails and
 * a similar one does not).
 */
import { conclusionsOf, isConcrete, isMusing } from '../reasoning.ts'
import { splitSentences } from '../text.ts'
import { forEachToken, tokenWeight, type ReuseIndex } from './reuse.ts'

/**
 * Words that state a result or an explanation: a cause, a consequence, a count, a
 * corrected value, where something comes from, why one case differs from another.
 */
const RESULT_RE =
  /\b(?:the (?:cause|reason|difference|answer|result|culprit|correct \w+|actual \w+|real \w+|source|origin)\b|this (?:means|explains|is why)|which (?:means|explains|is why)|that(?:'s| is) why|so the\b|therefore|thus|hence|found (?:\d+|that|the|a|an|no)\b|there (?:are|is) (?:\d+|only|no)\b|(?:\d+|two|three|four|five|six|seven|eight|nine|ten|several|all|both|only one) (?:of the )?(?:\w+ )?(?:files?|backends?|tests?|places?|matches|occurrences|callers?|usages?|results?|modules?|classes|functions|calls|instances|cases|tools|items|errors)\b|(?:comes?|came) from|(?:is|are|was|were) (?:only |always |never |not |already )?(?:set|built|read|run|\w+ed) (?:in|by|at|from|inside|through|into|as|when|via|before|after|only)\b|because|whereas|unlike|while the\b|only (?:when|if)\b|unless|(?:does|do|did) not (?:\w+ )?(?:warn|raise|fail|check|handle|call|apply|match|exist|support|include|use)|never (?:\w+ )?(?:warns?|raises?|fails?|checks?|handles?|calls?|reaches?|returns?)|returns? (?:None|null|nil|early|an? |the |\d|`)|guards?|(?:is|are) (?:now )?(?:correct|wrong|outdated|incorrect|deprecated|missing|unused|ignored|skipped|the same|different|equal|identical)|(?:→|->|=>))/i

/** Lead-ins that wrap a statement without being part of it ("I see that", "Great!"). */
const LEAD_IN_RE = /^(?:(?:good|great|perfect|excellent|interesting|ok(?:ay)?|alright|now|so|right)[,!.:]\s+)*(?:i (?:can )?see (?:that |now that |now:? )?|i found (?:that )?|i notice(?:d)? (?:that )?|i(?:'|’)ve (?:confirmed|verified|found|checked|seen|noticed|learned|established)(?: that)?:?\s*|now i (?:see|understand)[:,]?\s*(?:that )?|it (?:turns out|appears) (?:that )?|(?:the )?key (?:finding|insight|observation)s?(?: is)?:?\s*|(?:looking at|from) (?:this|the (?:code|output|results?)),?\s*)/i

/** A guess rather than a result ("it's possible that…", "this could be…"). */
const HEDGE_RE = /\b(?:it(?:'|’)?s possible|(?:it|this|that) (?:is|seems) (?:possible|likely|unlikely)|could be|would be|might|likely|unlikely|presumably|suppose|assuming)\b/i

/** A restatement of the task or of what someone said, not something learned. */
const RESTATE_RE = /^(?:it|this|the (?:pr|issue|task|ticket|description|user|docs?|documentation|request|problem statement)) (?:says|states|mentions|describes|asks|wants|reports|shows that the user)\b/i

/** A statement about the agent's own next move, not about the code or the world. */
const SELF_RE = /^(?:i|we|let'?s|let me|i'?ll|we'?ll|i'?m|we'?re|now let|first|next|then|here is|here are|here's)\b/i

export interface Statement {
  text: string
  /** Its time (findings/index.ts timesOf). */
  position: number
  /** The position of its message, set by the caller. */
  message?: number
  score: number
  /** Distinctive tokens of the statement: what it says, for the ranking that prefers findings saying something new (findings/index.ts). */
  tokens: string[]
  /** Whether a result word carried it (RESULT_RE), not only its reused identifiers. */
  cued: boolean
}

/** A statement without its lead-in, capitalised again when one was cut. */
export function withoutLeadIn(sentence: string): string {
  const s = sentence.replace(LEAD_IN_RE, '').trim()
  return s && s !== sentence.trim() ? s[0]!.toUpperCase() + s.slice(1) : s
}

/** Prose outside tables and code blocks (values.ts reads those). */
function proseOf(text: string): string {
  return text
    .replace(/```[\s\S]*?```/g, ' ')
    .split('\n')
    .filter((l) => !/^\s*\|/.test(l))
    .join('\n')
}

/**
 * Result statements of one assistant message at `position`, scored: a result word, the
 * identifiers the agent reused later (or acted on in the same message), the output tokens
 * the statement rests on (`fromOutput`: where each token first came out of a tool), and
 * how late it came (a later statement is the agent's more current understanding).
 */
export function statementsOf(text: string, position: number, acted: boolean, index: ReuseIndex, fromOutput: ReadonlyMap<string, number>): Statement[] {
  const out: Statement[] = []
  for (const raw of splitSentences(proseOf(text), 24, 420)) {
    // Cheapest tests first: most sentences of an agent's prose are narration.
    const s = withoutLeadIn(raw)
    if (s.length < 24 || SELF_RE.test(s) || RESTATE_RE.test(s) || HEDGE_RE.test(s) || isMusing(s) || !isConcrete(s)) continue
    const cued = RESULT_RE.test(s)
    let reuse = 0
    let rests = 0
    const tokens: string[] = []
    const seen = new Set<string>()
    forEachToken(s, (token) => {
      if (seen.has(token)) return
      seen.add(token)
      const w = tokenWeight(token)
      if (w === 0) return
      if (w >= 0.5) tokens.push(token)
      reuse += w * index.reuse(token, position)
      const from = fromOutput.get(token)
      if (from !== undefined && from < position) rests += w
    })
    if (!cued && reuse < 1) continue
    // Root causes, decisions, abandoned attempts and next steps have their own lines; a
    // sentence with no result word must at least state something ("X returns Y"), not
    // narrate an action ("Reading conftest.py next.").
    const kinds = conclusionsOf(s, acted).map((c) => c.kind)
    if (kinds.some((k) => k !== 'finding') || (!cued && !kinds.includes('finding'))) continue
    const lateness = index.length > 1 ? position / (index.length - 1) : 1
    const score = (cued ? 1.5 : 0.5) + Math.min(reuse, 3) + 0.4 * Math.min(rests, 2.5) + 0.6 * lateness
    out.push({ text: s, position, score, tokens, cued })
  }
  return out
}
