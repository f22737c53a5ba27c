/**
 * A compaction as a recipe a later request can replay (the proxy, issue 23): which of the
 * caller's messages it kept as they were, and which it created (summary, masked results,
 * condensed turns), in output order. A later request that extends the same history gets
 * the same output again, byte for byte, with its new messages after it: the provider's
 * prompt cache then bills that prefix at its cached price instead of a new one per turn.
 *
 * Kept messages are read from the new request (the caller holds them anyway); only the
 * created ones are stored. The recipe is valid for a request whose first `coveredCount`
 * messages (and system prompt) hash to `coveredHash`.
 */
import { createHash } from 'node:crypto'

/** One output message: the caller's message at `kept`, or one compactd created. */
export type PrefixPart = { kept: number } | { created: unknown }

export interface ReusablePrefix {
  coveredCount: number
  coveredHash: string
  parts: PrefixPart[]
}

/** JSON text of each message, once: matching and hashing both read it. */
export function messageTexts(messages: readonly unknown[]): string[] {
  return messages.map((m) => JSON.stringify(m) ?? 'null')
}

/** The hash of the first `count` messages and the system prompt, as JSON text. */
export function coveredHash(texts: readonly string[], count: number, system: unknown): string {
  const hash = createHash('sha256')
  hash.update(JSON.stringify(system ?? null))
  for (let i = 0; i < count; i++) hash.update('\u0000').update(texts[i]!)
  return hash.digest('hex')
}

/**
 * The recipe of a compaction's output: each output message that is byte-identical to an
 * input message at or after the last one matched is kept by index, every other one is
 * created. Kept messages keep their order in the input, so matching scans forward.
 */
export function prefixRecipe(inputTexts: readonly string[], output: readonly unknown[], system: unknown): ReusablePrefix {
  const positions = new Map<string, number[]>()
  inputTexts.forEach((t, i) => {
    const at = positions.get(t)
    if (at) at.push(i)
    else positions.set(t, [i])
  })
  const parts: PrefixPart[] = []
  let next = 0
  for (const message of output) {
    const found = positions.get(JSON.stringify(message) ?? 'null')?.find((i) => i >= next)
    if (found === undefined) parts.push({ created: message })
    else {
      parts.push({ kept: found })
      next = found + 1
    }
  }
  return { coveredCount: inputTexts.length, coveredHash: coveredHash(inputTexts, inputTexts.length, system), parts }
}

/**
 * The prefix for a request whose messages extend the covered history, then its messages
 * after the covered ones; undefined when the request does not extend it (another
 * history, an edited or shortened one).
 */
export function replayPrefix(prefix: ReusablePrefix, messages: readonly unknown[], texts: readonly string[], system: unknown): unknown[] | undefined {
  if (messages.length < prefix.coveredCount) return undefined
  if (coveredHash(texts, prefix.coveredCount, system) !== prefix.coveredHash) return undefined
  const out: unknown[] = prefix.parts.map((p) => ('kept' in p ? messages[p.kept] : p.created))
  for (let i = prefix.coveredCount; i < messages.length; i++) out.push(messages[i])
  return out
}

/**
 * The head a later compaction may keep byte for byte (the proxy's chained rounds): the
 * leading parts up to the last of the summaries among them, as long as nothing else
 * compactd created (a masked result, a condensed turn) comes before it. `summaries`: how
 * many summaries the head holds (0: no head to keep).
 */
export function frozenHead(parts: readonly PrefixPart[], isSummary: (created: unknown) => boolean): { length: number; summaries: number } {
  let length = 0
  let summaries = 0
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!
    if (!('created' in p)) continue
    if (!isSummary(p.created)) break
    length = i + 1
    summaries++
  }
  return { length, summaries }
}
