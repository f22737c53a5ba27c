/**
 * Secret redaction for the message archive: the original messages that compaction drops are
 * stored and full-text indexed, so well-known secret shapes are replaced before they are
 * (`[REDACTED:<rule-id>]`). The rules live in ./secret-rules.ts (adapted from gitleaks);
 * docs/security.md, "Secrets in the archive", lists them with the false-positive policy
 * and the measured cost.
 *
 * Pure and linear: each rule is one regex pass whose attempts are linear (see the rule
 * file), and a rule runs only on text that holds one of its keywords, so text with no
 * candidate costs one lower-casing and a few substring searches.
 */
import { isSecretValue, REDACTION_RULES, SECRET_PROPERTY_NAME, type RedactionRule } from './secret-rules.ts'

export { REDACTION_RULES, type RedactionRule } from './secret-rules.ts'

export interface Redaction {
  text: string
  count: number
  /** Rule id -> secrets it replaced. */
  rules: Record<string, number>
}

export const redactionLabel = (ruleId: string): string => `[REDACTED:${ruleId}]`

const GENERIC_RULE_ID = 'generic-api-key'

/** Every rule's keywords, longest first, so that where two start at one place the longer one is what matches. */
const KEYWORDS = [...new Set(REDACTION_RULES.flatMap((rule) => rule.keywords))].sort((a, b) => b.length - a.length)
/** Keyword -> the keywords inside it (itself included): where `sk-ant-` is found, so is `sk-`. */
const KEYWORDS_WITHIN = new Map(KEYWORDS.map((keyword) => [keyword, KEYWORDS.filter((other) => keyword.includes(other))]))
const KEYWORD_SCAN = new RegExp(KEYWORDS.map((keyword) => keyword.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')).join('|'), 'gi')

/**
 * The keywords in the text, in one case-insensitive scan: the cheap pre-check. A rule runs
 * only if one of its keywords is here, so text with none (most prose) costs this scan
 * alone, and a message runs the few rules it has keywords for. One scan measured 4 times
 * faster than lower-casing the text and searching it for each keyword (5 MB of prose), and
 * 2 times faster on 4 KB messages.
 * `undefined` (run every rule) if a match is not one of the keywords once lower-cased:
 * the scan and the rules share the `i` flag's matching, so that would be a case mapping
 * only `i` knows.
 */
function keywordsIn(text: string): Set<string> | undefined {
  const found = new Set<string>()
  KEYWORD_SCAN.lastIndex = 0
  for (let match = KEYWORD_SCAN.exec(text); match !== null; match = KEYWORD_SCAN.exec(text)) {
    const within = KEYWORDS_WITHIN.get(match[0].toLowerCase())
    if (!within) return undefined
    for (const keyword of within) found.add(keyword)
    KEYWORD_SCAN.lastIndex = match.index + 1 // occurrences that overlap this one count too
  }
  return found
}

/** The span a match replaces: its `secret` (or `secret2`) group, else the whole match. */
function secretSpan(match: RegExpExecArray): [number, number] {
  const groups = match.indices?.groups
  const span = groups?.secret ?? groups?.secret2
  return span ?? match.indices![0]
}

/** One rule over the text: the text with its accepted matches replaced, and how many. */
function applyRule(rule: RedactionRule, text: string): { text: string; count: number } {
  const pattern = rule.pattern
  pattern.lastIndex = 0
  const parts: string[] = []
  let copiedUpTo = 0
  let count = 0
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (match[0] === '') {
      pattern.lastIndex++ // no rule matches empty text; this only guards the loop
      continue
    }
    const [start, end] = secretSpan(match)
    if (rule.accept && !rule.accept(text.slice(start, end), match.groups ?? {})) continue
    parts.push(text.slice(copiedUpTo, start), redactionLabel(rule.id))
    copiedUpTo = end
    count++
  }
  if (count === 0) return { text, count }
  parts.push(text.slice(copiedUpTo))
  return { text: parts.join(''), count }
}

/** Replaces each secret with `[REDACTED:<rule-id>]`. */
export function redactSecrets(text: string): Redaction {
  const rules: Record<string, number> = {}
  let count = 0
  // Keywords are looked up in the original text: a redaction only removes text, so it
  // never brings a later rule's keyword in (the labels match no rule: tested).
  const keywords = keywordsIn(text)
  if (keywords?.size === 0) return { text, count, rules }
  for (const rule of REDACTION_RULES) {
    if (keywords && !rule.keywords.some((keyword) => keywords.has(keyword))) continue
    const result = applyRule(rule, text)
    if (result.count === 0) continue
    text = result.text
    count += result.count
    rules[rule.id] = (rules[rule.id] ?? 0) + result.count
  }
  return { text, count, rules }
}

function addCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [id, n] of Object.entries(from)) into[id] = (into[id] ?? 0) + n
}

/**
 * Redacts every string inside a JSON value (object keys kept), returns a new value; count
 * summed. Used on the caller's raw message objects. A string under a secret-named key
 * (`"api_key"`, `"password"`, not `"max_tokens"`) is context enough on its own: the whole
 * string is replaced when it passes the same value checks as `NAME=value` in text.
 * Recursive: message values reach the archive through the API, which refuses nesting past
 * MAX_JSON_DEPTH (src/engine/json-depth.ts).
 */
export function redactValue(value: unknown): { value: unknown; count: number; rules: Record<string, number> } {
  const rules: Record<string, number> = {}
  let count = 0
  const walk = (node: unknown, key: string | undefined): unknown => {
    if (typeof node === 'string') {
      const result = redactSecrets(node)
      count += result.count
      addCounts(rules, result.rules)
      if (key !== undefined && SECRET_PROPERTY_NAME.test(key) && isSecretValue(result.text)) {
        count++
        rules[GENERIC_RULE_ID] = (rules[GENERIC_RULE_ID] ?? 0) + 1
        return redactionLabel(GENERIC_RULE_ID)
      }
      return result.text
    }
    if (Array.isArray(node)) return node.map((item) => walk(item, undefined))
    if (node !== null && typeof node === 'object') {
      // fromEntries defines own properties, so a "__proto__" key stays a key.
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, k)]))
    }
    return node
  }
  return { value: walk(value, undefined), count, rules }
}
