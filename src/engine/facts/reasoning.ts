/**
 * Conclusions in assistant prose: root causes, decisions, abandoned attempts and stated
 * next steps. An agent thinks aloud; only statements survive here, never questions or
 * musings ("What if we…?", "I think we need a different approach.", "Let me check the
 * updated test:"). A conclusion must say something concrete (code, a file, a name, a
 * value) — "a different approach" names nothing an agent could act on.
 */
import { splitSentences } from './text.ts'

export type ConclusionKind = 'root-cause' | 'decision' | 'abandoned' | 'next' | 'finding'

export interface Conclusion {
  kind: ConclusionKind
  text: string
}

const ROOT_CAUSE_RE = /\b(root cause|the (?:actual |real |underlying )?(?:issue|problem|bug|error|failure|culprit) (?:is|was|lies|occurs|happens|comes|stems)|caused by|this happens because|(?:fails|failed|breaks|broke) because|the reason (?:is|was)|is because|was because|due to)\b/i
/** "We should see / get …" expects an outcome; "we should use / add …" decides. */
const SHOULD = String.raw`we should(?! (?:now )?(?:see|get|find|be able|observe|expect|receive|notice|have)\b)`
/** Words that mark a choice: what was decided, or what it was chosen over. */
const CHOICE = String.raw`decided|decision|${SHOULD}|(?:the )?(?:best|right|correct|cleanest|simplest|minimal|safest) (?:approach|fix|way|solution|change|option)|instead of|rather than|chose|going with|the fix (?:is|should|will)|the solution (?:is|should|will)`
const DECISION_RE = new RegExp(String.raw`\b(I(?:'ll| will| am going to|'m going to) (?:use|go with|implement|add|change|modify|fix|update|create|keep|switch|replace|refactor|remove|move|write|rewrite|store|handle|wrap|return|pass)|${CHOICE})\b`, 'i')
/**
 * A root cause stated in Korean, Japanese or Chinese: "원인: …", "진짜 원인 발견", "X가 원인",
 * "原因は…", "根本原因是…". The class: agents that report in those languages (the raddit
 * session's agent writes its conclusions in Korean). A cause still being guessed or looked
 * for (가설 hypothesis, 짐작 guess, 추정 estimate, "원인을 확정한 뒤" once it is found) is not one.
 */
const ROOT_CAUSE_CJK_RE = /(?:^|[\s*#>(:-])원인(?:은|:|\s*=|\s*(?:발견|규명|확인됨|확정됨))|[이가게]\s*원인(?:이다|입니다|임|이었다|\.|\*|$)|根本原因|原因(?:は|是|：|:)/
const CAUSE_UNSETTLED_CJK_RE = /가설|짐작|추정|추측|아마|[을를]\s*(?:확정|찾|분석|규명|파악)(?:한다|하자|할|해야|하기|한 뒤|하고)|可能|かもしれ|推測/

/** An attempt judged useless: "did not help", "had no effect" (attempts.ts reads the same words as a reason). */
export const NO_EFFECT = String.raw`did(?:n'?t| not) help|does(?:n'?t| not) help|had no effect|made no difference`
const ABANDONED_RE = new RegExp(String.raw`\b(didn'?t work|did not work|doesn'?t work|does not work|won'?t work|${NO_EFFECT}|revert(?:ed|ing)?|abandon(?:ed|ing)?|giv(?:e|ing) up on|wrong approach|not the right (?:approach|fix|place)|roll(?:ed)? back|undid|undo(?:ne)? (?:the|my|that)|still fail(?:s|ing)?|broke (?:other|more|the)|made (?:it|things) worse)\b`, 'i')
/** A plain statement of fact about the code or the environment ("X was removed in Python 3.11"). */
const FINDING_RE = /\b(is|was|are|were|has|had|have|returns?|fails?|raises?|removed|added|introduced|defined|located|lives|uses|calls|requires|needs|contains|points|shows|breaks|expects|supports|only|never|always)\b/i

const NEXT_RE = /\b(next,? (?:I(?:'ll| will)|let'?s|we(?:'ll| will)?)|next step|then I(?:'ll| will)|I(?:'ll| will) (?:now|next|then)|now I(?:'ll| will| need to)|still need to|remaining (?:work|step|task)s? (?:is|are)|TODO:|after that,? I(?:'ll| will))\b/i

/**
 * A choice says why, or what it was chosen over. A "decision" without either, in the
 * message that makes the call it announces ("I'll use `curl` to submit some test data",
 * "Now, I will modify `upstream.ts` — …"), narrates that call: the call's own log line and
 * file row say what it did. The class: agents that announce every tool call (SWE-agent
 * kin, CTF agents, pi), whose Key Technical Decisions were a list of their next commands.
 */
const REASON_RE = /\b(because|since|as (?:it|this|that|the|a)\b|so (?:that|the|it|we)\b|in order to|to (?:avoid|prevent|keep|preserve|ensure|support|match|fix|handle|allow)\b|instead|rather than|over (?:the|a|an)\b|otherwise|which (?:is|means|keeps|avoids)|better|safer|simpler|cleaner|faster|cheaper|required|must|only way|so|thus|therefore)\b/i
/** The announcing form: "I'll / I will / I am going to / let's / we will" + a verb, nothing else that marks a choice. */
const ANNOUNCE_RE = /\b(?:I(?:'ll| will| am going to|'m going to)|let'?s|we(?:'ll| will))\s+(?:now\s+|then\s+|first\s+)?\w+/i
const CHOICE_RE = new RegExp(String.raw`\b(?:${CHOICE})\b`, 'i')

/** Whether a decision sentence of a message that makes a call only announces that call. */
export function narratesCall(sentence: string, acted: boolean): boolean {
  return acted && ANNOUNCE_RE.test(sentence) && !CHOICE_RE.test(sentence) && !REASON_RE.test(sentence)
}

/** Questions, hedges and narration of the very next tool call are not conclusions. */
const MUSING_RE = /^(what if|maybe|perhaps|hmm+|wait|actually|i wonder|let me|let's (?:see|check|look|try|first)|i think|i guess|i believe|i suspect|i'm not sure|not sure|could it be|is it|should i|do we|does it|okay|ok|alright|now let|first,? let|but)\b|\b(might|may be|maybe|possibly|probably|perhaps|seems? (?:like|to)|not sure|i think|i guess|i suspect)\b/i

/** Something an agent could act on: code, a path, an identifier, a quoted value, a number. */
const CONCRETE_RE = /`[^`]+`|[\w-]+\/[\w./-]+|\b[\w-]+\.(?:py|ts|tsx|js|jsx|go|rs|java|rb|md|json|ya?ml|toml|css|html|sh|sql|c|h|cpp)\b|\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z]\w+\b|\b[A-Z][a-z]+[A-Z]\w+\b|\w+\(\)|"[^"]{2,}"|'[^']{2,}'|\b\d+\b/

/** A sentence worth keeping when prose is condensed: a conclusion or a concrete finding. */
export function isKeySentence(sentence: string): boolean {
  return conclusionsOf(sentence, false).length > 0
}

export function isMusing(sentence: string): boolean {
  const s = sentence.trim()
  return s.endsWith('?') || s.endsWith(':') || MUSING_RE.test(s)
}

export function isConcrete(sentence: string): boolean {
  return CONCRETE_RE.test(sentence)
}

function concreteCount(sentence: string): number {
  return (sentence.match(new RegExp(CONCRETE_RE.source, 'g')) ?? []).length
}

/** Conclusions in one assistant text, in order; `acted` says the same message also made a tool call. */
export function conclusionsOf(text: string, acted = false): Conclusion[] {
  const out: Conclusion[] = []
  for (const s of splitSentences(text, 20, 500)) {
    // A next step names what it will do ("add the test for X"), not "understand the flow better".
    const next = NEXT_RE.test(s) && !s.trim().endsWith('?') && isConcrete(s)
    if (next) {
      out.push({ kind: 'next', text: s })
      continue
    }
    if (isMusing(s)) continue
    if (ROOT_CAUSE_RE.test(s) || (ROOT_CAUSE_CJK_RE.test(s) && !CAUSE_UNSETTLED_CJK_RE.test(s))) {
      if (isConcrete(s)) out.push({ kind: 'root-cause', text: s })
    } else if (ABANDONED_RE.test(s)) {
      if (isConcrete(s)) out.push({ kind: 'abandoned', text: s })
    } else if (DECISION_RE.test(s)) {
      // A decision either names what it decides or is acted on in the same message; one that only announces the message's call is narration.
      if ((isConcrete(s) || acted) && !narratesCall(s, acted)) out.push({ kind: 'decision', text: s })
    } else if (FINDING_RE.test(s) && concreteCount(s) >= 1 && !/^(i|we|let|now|first|then|next|so|here|this is)\b/i.test(s)) {
      out.push({ kind: 'finding', text: s })
    }
  }
  return out
}
