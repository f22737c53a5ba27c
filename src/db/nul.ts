/**
 * NUL-safe storage of caller content (issue 10, defect 2).
 *
 * PostgreSQL (and PGlite) cannot store U+0000: a text value fails with "invalid byte
 * sequence for encoding UTF8: 0x00", a jsonb value with "unsupported Unicode escape
 * sequence". Tool output does contain NUL (binary files, process output), so the
 * repositories escape it reversibly in every string they store, and unescape on read:
 *
 *   U+0000  →  U+FFFF '0'          (two characters)
 *   U+FFFF  →  U+FFFF U+FFFF       (the escape character itself)
 *
 * Applied to text columns as is, and to JSON columns (json and jsonb) inside the value:
 * to every string and every object key, so the stored JSON is ordinary JSON that
 * PostgreSQL can index and query, and `\u0000` never reaches it. A literal six-character
 * backslash-u0000 in a string is not NUL and is stored unchanged.
 *
 * U+FFFF is a Unicode noncharacter, "never to be interchanged": real text does not
 * contain it, so what is stored is the caller's text byte for byte unless it holds NUL,
 * and the common case costs one scan. Decoding reads pairs left to right; an U+FFFF not
 * followed by '0' or U+FFFF (only in rows written before this scheme) is kept as is.
 *
 * Encode exactly once on write and decode exactly once on read: decoding is not
 * idempotent ("\uFFFF\uFFFF0" decodes to "\uFFFF0", which would decode again to NUL).
 */

const ESC = '\uFFFF'
const NEEDS_ENCODING = /[\u0000\uFFFF]/
const ENCODE = /[\u0000\uFFFF]/g
const DECODE = /\uFFFF([0\uFFFF])/g

/** A string as stored: NUL and U+FFFF escaped. */
export function encodeText(s: string): string {
  return NEEDS_ENCODING.test(s) ? s.replace(ENCODE, (c) => (c === '\u0000' ? `${ESC}0` : ESC + ESC)) : s
}

/** A stored string back to the caller's. */
export function decodeText(s: string): string {
  return s.includes(ESC) ? s.replace(DECODE, (_, c: string) => (c === '0' ? '\u0000' : ESC)) : s
}

/** Nullable text columns. */
export function encodeNullableText(s: string | null): string | null {
  return s === null ? null : encodeText(s)
}

/**
 * The JSON text to store for `value` in a json or jsonb column, its strings and keys
 * encoded. JSON.stringify writes NUL as the escape `\u0000` and U+FFFF as itself, so the
 * text tells whether anything needs encoding (a literal backslash-u0000 shows as
 * `\\u0000` and takes the slow path too, harmlessly).
 */
export function encodeJson(value: unknown): string {
  const text = JSON.stringify(value)
  if (text === undefined || !/\\u0000|\uFFFF/.test(text)) return text
  return JSON.stringify(mapStrings(JSON.parse(text), encodeText))
}

/** A value read from a json or jsonb column (already parsed), its strings and keys decoded. */
export function decodeJson<T = unknown>(value: T): T {
  return mapStrings(value, decodeText) as T
}

/** `value` with `f` applied to every string and object key; the same object when nothing changes. */
function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value)
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    let out: unknown[] | undefined
    for (let i = 0; i < value.length; i++) {
      const v = mapStrings(value[i], f)
      if (v !== value[i]) (out ??= value.slice())[i] = v
    }
    return out ?? value
  }
  const entries = Object.entries(value as Record<string, unknown>)
  let changed = false
  const mapped = entries.map(([k, v]): [string, unknown] => {
    const k2 = f(k)
    const v2 = mapStrings(v, f)
    if (k2 !== k || v2 !== v) changed = true
    return [k2, v2]
  })
  return changed ? Object.fromEntries(mapped) : value
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/**
 * Why a string cannot be used as a query parameter's value in SQL, or undefined. Values
 * that only filter or page (a search text, a cursor's id) are not stored, so they are not
 * escaped as above: PostgreSQL and PGlite refuse U+0000 in any text parameter (a 500
 * before), and a lone UTF-16 surrogate has no UTF-8 encoding (the driver sends U+FFFD
 * instead: a silently different value). Either is a 400 naming the parameter.
 */
export function sqlTextProblem(s: string): string | undefined {
  if (s.includes('\u0000')) return 'contains NUL (U+0000), which is not valid here'
  if (LONE_SURROGATE.test(s)) return 'contains a lone UTF-16 surrogate (not valid Unicode)'
  return undefined
}
