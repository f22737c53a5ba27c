/** Deterministic English-like prose for tests: the same seed gives the same text. */
const DEFAULT_WORDS = 'the scheduler reads each card and writes the review log while the parser checks every token of the session budget before the queue flushes its cache'.split(' ')

export function prose(chars: number, seed: number, opts: { words?: readonly string[]; offset?: number; end?: string } = {}): string {
  const words = opts.words ?? DEFAULT_WORDS
  let x = seed * 2654435761 + (opts.offset ?? 7)
  const out: string[] = []
  let len = 0
  while (len < chars) {
    x = (x * 1103515245 + 12345) % 2147483648
    const w = words[x % words.length]!
    out.push(w)
    len += w.length + 1
  }
  return out.join(' ') + (opts.end ?? '')
}
