/**
 * The error a failed call's output shows: its most telling line, and the detail kept when
 * error details are preserved (failing tests, a traceback's end, errors of one kind).
 */
import { extractFailingTests } from './failing-tests.ts'
import { clipLine, HARNESS_LINE_RE, lines, signatureWeight, tracebackEnds } from './signatures.ts'

/**
 * The most telling error line, from signatures only: a failing test with its error, the
 * line a traceback ends with, a typed error (`ValueError: …`, `error[E0308]: …`,
 * `npm ERR!`, `fatal:`). Undefined when the output shows none.
 */
export function extractErrorLine(output: string): string | undefined {
  if (!output) return undefined
  const failing = extractFailingTests(output)
  const first = failing.find((f) => f.error) ?? failing[0]
  if (first && /::|\./.test(first.name) && first.error) return clipLine(`FAILED ${first.name} - ${first.error}`)
  const ls = lines(output)
  const tb = tracebackEnds(ls).at(-1)
  if (tb) return clipLine(ls[tb.end]!)
  let best: string | undefined
  let bestWeight = 0
  for (const raw of ls) {
    if (raw.length > 2000 || HARNESS_LINE_RE.test(raw)) continue
    const w = signatureWeight(raw)
    if (w > 2 && w >= bestWeight) {
      // The last of equally telling lines: a chain of errors ends with the cause that matters.
      // The first, though, for compiler errors (later ones often follow from it).
      if (w === bestWeight && /^error|error TS\d+|: error: /.test(best ?? '')) continue
      best = raw
      bestWeight = w
    }
  }
  if (best) return clipLine(best)
  if (first) return clipLine(first.error ? `${first.name} - ${first.error}` : `FAILED ${first.name}`)
  return undefined
}

/**
 * The detail preserveErrorDetails keeps: for failing tests, each test's name with its
 * error line; for a traceback, its last frames and the error; else the lines from the
 * error line on.
 */
export function extractErrorDetail(output: string, errorLine: string | undefined, maxChars = 1200): string | undefined {
  if (!errorLine) return undefined
  const failing = extractFailingTests(output)
  let text: string
  if (failing.length > 0) {
    text = failing.map((f) => `FAILED ${f.name}${f.error ? ` - ${f.error}` : ''}`).join('\n')
  } else {
    const ls = lines(output)
    const tb = tracebackEnds(ls).at(-1)
    let block: string[]
    if (tb) {
      // The last frames and the error: the useful end of a traceback.
      block = [ls[tb.start]!, ...ls.slice(Math.max(tb.start + 1, tb.end - 6), tb.end + 1)]
    } else {
      const want = errorLine.replace(/…$/, '')
      const at = ls.findIndex((l) => clipLine(l).startsWith(want))
      // Several errors of the same kind (each missing path, each compiler error): all of them,
      // not the one chosen and whatever output follows it.
      const weight = at >= 0 ? signatureWeight(ls[at]!) : 0
      const alike = weight > 2 ? ls.filter((l) => l.length <= 2000 && !HARNESS_LINE_RE.test(l) && signatureWeight(l) === weight) : []
      if (alike.length > 1) block = alike.slice(0, 8)
      else block = at >= 0 ? ls.slice(at, at + 4).filter((l) => !HARNESS_LINE_RE.test(l)) : [errorLine]
    }
    text = block.map((l) => l.trimEnd()).filter(Boolean).join('\n')
  }
  return text.length > maxChars ? `${text.slice(0, maxChars / 2)}\n…\n${text.slice(-maxChars / 2)}` : text
}
