/**
 * The fenced blocks of a Markdown page and the markers that say what each one is, for the
 * tests that run the documentation's examples (test/docs-examples.test.ts,
 * test/sdk-loops.test.ts).
 *
 * Every fenced block is preceded, on the line right above its fence, by one marker:
 *
 *   <!-- example: NAME -->             a runnable example (sh, console, ts, python); `after A, B`
 *                                      at the end: it runs once A and B have (they share state)
 *   <!-- output: NAME -->              what example NAME (or the test's request NAME) prints
 *   <!-- request: NAME -->             a request body the test sends as step NAME (the route is in
 *                                      the prose; test/helpers/docs-requests.ts sends it)
 *   <!-- excerpt: PATH -->             a shortened copy of a file of the repository (docs/examples/…)
 *   <!-- not-run: REASON -->           not run by any test, and why
 *
 * An output may shorten what was printed with `…`: in text, `…` stands for any text (a line
 * holding only `…` for any lines); in JSON, a string with `…` for any string matching it, an
 * array element `"…"` (or `"… words …"`) for any elements, and a key `"…"` for any other keys.
 * Values that differ on every run (request ids, timestamps, durations) are compared as
 * placeholders, never byte for byte.
 */
import fs from 'node:fs'
import path from 'node:path'

export const ROOT = path.resolve(import.meta.dirname, '../..')

/**
 * The examples of docs/integrations.md that test/sdk-loops.test.ts runs rather than the
 * doc test: it scripts the fake model for the loops, checks what each prompt held, and
 * type-checks them.
 */
export const RUN_BY_SDK_LOOPS = ['typescript-client', 'python-client', 'ai-sdk', 'openai-loop', 'anthropic-loop']

export type Marker =
  | { kind: 'example'; name: string; after: string[] }
  | { kind: 'output' | 'request'; name: string }
  | { kind: 'excerpt'; path: string }
  | { kind: 'not-run'; reason: string }

export interface Block {
  /** The page, relative to the repository. */
  doc: string
  /** 1-based line of the opening fence. */
  line: number
  lang: string
  /** The fence's indentation (a block inside a list item), removed from `body`. */
  indent: string
  body: string
  marker?: Marker
  /** Offsets of the body's text in the page (indentation included), for rewriting it. */
  start: number
  end: number
}

const MARKER = /^\s*<!-- (example|output|request|excerpt|not-run): (.+?) -->\s*$/

function parseMarker(kind: string, value: string): Marker {
  if (kind === 'example') {
    const [name, after] = value.split(/\s+after\s+/)
    return { kind, name: name!.trim(), after: after ? after.split(',').map((s) => s.trim()) : [] }
  }
  if (kind === 'excerpt') return { kind, path: value.trim() }
  if (kind === 'not-run') return { kind, reason: value.trim() }
  return { kind: kind as 'output' | 'request', name: value.trim() }
}

/** The fenced blocks of a page, each with the marker on the line above it. */
export function parseBlocks(doc: string, text: string): Block[] {
  const lines = text.split('\n')
  const offsets: number[] = []
  let offset = 0
  for (const l of lines) {
    offsets.push(offset)
    offset += l.length + 1
  }
  const blocks: Block[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\w*)\s*$/.exec(lines[i]!)
    if (!open) continue
    const indent = open[1]!
    let j = i + 1
    while (j < lines.length && lines[j]!.trim() !== '```') j++
    const marker = i > 0 ? MARKER.exec(lines[i - 1]!) : null
    const start = offsets[i + 1]!
    const end = j > i + 1 ? offsets[j - 1]! + lines[j - 1]!.length : start
    blocks.push({
      doc,
      line: i + 1,
      lang: open[2]!,
      indent,
      body: lines
        .slice(i + 1, j)
        .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
        .join('\n'),
      ...(marker ? { marker: parseMarker(marker[1]!, marker[2]!) } : {}),
      start,
      end,
    })
    i = j
  }
  return blocks
}

export function readBlocks(doc: string): Block[] {
  return parseBlocks(doc, fs.readFileSync(path.join(ROOT, doc), 'utf8'))
}

export const nameOf = (b: Block): string | undefined => (b.marker && 'name' in b.marker ? b.marker.name : undefined)

export function find(blocks: Block[], kind: 'example' | 'output' | 'request', name: string): Block | undefined {
  return blocks.find((b) => b.marker?.kind === kind && nameOf(b) === name)
}

/** Blocks that show what something printed: outputs, and console transcripts (commands and what they print). */
export const showsOutput = (b: Block): boolean => b.marker?.kind === 'output' || (b.marker?.kind === 'example' && b.lang === 'console')

// ---------------------------------------------------------------------------
// Comparing what ran with what the page shows
// ---------------------------------------------------------------------------

/** Fields whose values differ on every run: compared as a placeholder. */
const VARIABLE_KEYS = new Set(['requestId', 'createdAt', 'updatedAt', 'lastActivity', 'durationMs'])
const VARIABLE = '<differs on every run>'
const ELLIPSIS = '…'

function normalizeJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeJson)
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, VARIABLE_KEYS.has(k) && v !== null ? VARIABLE : normalizeJson(v)]))
  }
  return value
}

/** The same placeholders in text (JSON printed inside text output). */
export function normalizeText(text: string): string {
  return text.replace(/("(?:requestId|createdAt|updatedAt|lastActivity|durationMs)"\s*:\s*)("[^"]*"|[\d.]+)/g, `$1"${VARIABLE}"`).replace(/\n+$/, '')
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Text with `…` standing for any text (a line of only `…`: any lines, or none). */
function wildcard(expected: string): RegExp {
  const pattern = expected
    .split(/\n…(?=\n|$)/)
    .map((chunk) => chunk.split(ELLIPSIS).map(escapeRegExp).join('[\\s\\S]*?'))
    .join('(?:\\n[\\s\\S]*?)?')
  return new RegExp(`^${pattern}$`)
}

const isGap = (v: unknown) => typeof v === 'string' && v.startsWith(ELLIPSIS) && v.endsWith(ELLIPSIS)

/** Where `actual` differs from the page's (possibly shortened) JSON, or undefined. */
export function jsonMismatch(expected: unknown, actual: unknown, at = '$'): string | undefined {
  if (typeof expected === 'string' && expected.includes(ELLIPSIS)) {
    if (expected === ELLIPSIS) return undefined
    return typeof actual === 'string' && wildcard(expected).test(actual) ? undefined : `${at}: ${JSON.stringify(actual)?.slice(0, 200)} does not match ${JSON.stringify(expected)}`
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${at}: expected an array`
    return arrayMismatch(expected, actual, at)
  }
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return `${at}: expected an object`
    const e = expected as Record<string, unknown>
    const a = actual as Record<string, unknown>
    if (!(ELLIPSIS in e)) {
      const extra = Object.keys(a).filter((k) => !(k in e))
      if (extra.length) return `${at}: fields the page does not show: ${extra.join(', ')}`
    }
    for (const [k, v] of Object.entries(e)) {
      if (k === ELLIPSIS) continue
      if (!(k in a)) return `${at}.${k}: missing`
      const m = jsonMismatch(v, a[k], `${at}.${k}`)
      if (m) return m
    }
    return undefined
  }
  return expected === actual ? undefined : `${at}: ${JSON.stringify(actual)} instead of ${JSON.stringify(expected)}`
}

function arrayMismatch(expected: unknown[], actual: unknown[], at: string): string | undefined {
  // Backtracking over the gaps; pages shorten a handful of elements, so this stays small.
  let first: string | undefined
  const go = (i: number, j: number): boolean => {
    if (i === expected.length) return j === actual.length
    if (isGap(expected[i])) {
      for (let k = j; k <= actual.length; k++) if (go(i + 1, k)) return true
      return false
    }
    if (j >= actual.length) {
      first ??= `${at}: ${actual.length} elements, fewer than the page shows`
      return false
    }
    const m = jsonMismatch(expected[i], actual[j], `${at}[${j}]`)
    if (m) {
      first ??= m
      return false
    }
    return go(i + 1, j + 1)
  }
  return go(0, 0) ? undefined : (first ?? `${at}: ${actual.length} elements, more than the page shows`)
}

export interface Comparison {
  ok: boolean
  /** What to show in a failure: the page's block and the run's output, normalized. */
  expected: string
  actual: string
  why?: string
}

/** Compares a run's output with the page's block (JSON blocks as JSON, other blocks as text). */
export function compareOutput(block: Block, actual: string): Comparison {
  if (block.lang === 'json') {
    let expected: unknown
    let got: unknown
    try {
      expected = JSON.parse(block.body)
    } catch (err) {
      return { ok: false, expected: block.body, actual, why: `the page's block is not JSON: ${(err as Error).message}` }
    }
    try {
      got = JSON.parse(actual)
    } catch {
      return { ok: false, expected: block.body, actual, why: 'the output is not JSON' }
    }
    const why = jsonMismatch(normalizeJson(expected), normalizeJson(got))
    return { ok: !why, expected: block.body, actual: JSON.stringify(got, null, 2), ...(why ? { why } : {}) }
  }
  const expected = normalizeText(block.body)
  const got = normalizeText(actual)
  const ok = expected.includes(ELLIPSIS) ? wildcard(expected).test(got) : expected === got
  return { ok, expected, actual: got }
}

/** An excerpt block against the file it shortens. */
export function compareExcerpt(block: Block): Comparison {
  const file = (block.marker as { path: string }).path
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8')
  return compareOutput(block, text)
}

/** JSON as the pages write it: indented, with each object or array that fits on a line on one line. */
export function formatJson(value: unknown, indent = ''): string {
  const inline = (v: unknown): string =>
    Array.isArray(v) ? `[${v.map(inline).join(', ')}]` : v && typeof v === 'object' ? `{ ${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${inline(x)}`).join(', ')} }`.replace('{  }', '{}') : JSON.stringify(v)
  const one = inline(value)
  if (indent.length + one.length <= 170 || !value || typeof value !== 'object') return one
  const inner = indent + '  '
  if (Array.isArray(value)) return `[\n${value.map((v) => inner + formatJson(v, inner)).join(',\n')}\n${indent}]`
  return `{\n${Object.entries(value)
    .map(([k, v]) => `${inner}${JSON.stringify(k)}: ${formatJson(v, inner)}`)
    .join(',\n')}\n${indent}}`
}

/**
 * The page with the given outputs written into their blocks (UPDATE_DOCS=1). A block that
 * already matches is left as it is (its ids and timestamps stay); a shortened one (with `…`)
 * is never rewritten: it is returned in `shortened` for a person to redo.
 */
export function rewriteOutputs(doc: string, outputs: Map<string, string>): { text: string; written: string[]; shortened: string[] } {
  let text = fs.readFileSync(path.join(ROOT, doc), 'utf8')
  const written: string[] = []
  const shortened: string[] = []
  const blocks = parseBlocks(doc, text).filter((b) => showsOutput(b) && outputs.has(nameOf(b)!))
  for (const b of blocks.reverse()) {
    const name = nameOf(b)!
    const actual = outputs.get(name)!
    if (compareOutput(b, actual).ok) continue
    if (b.body.includes(ELLIPSIS)) {
      shortened.push(name)
      continue
    }
    let body = actual.replace(/\n+$/, '')
    if (b.lang === 'json') {
      const value = JSON.parse(actual)
      body = b.body.includes('\n') ? formatJson(value) : JSON.stringify(value)
    }
    const indented = body
      .split('\n')
      .map((l) => (l ? b.indent + l : l))
      .join('\n')
    text = text.slice(0, b.start) + indented + (b.start === b.end ? '\n' : '') + text.slice(b.end)
    written.push(name)
  }
  return { text, written: written.reverse(), shortened: shortened.reverse() }
}
