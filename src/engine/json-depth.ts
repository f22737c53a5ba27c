/**
 * The JSON nesting limit, shared by the HTTP body guard (src/plugins/input-guards.ts)
 * and the agent-log importer (src/engine/import): the message adapters and the engine
 * walk tool inputs recursively, and JSON.stringify recurses too, so a value nested
 * thousands of levels deep would overflow the stack (a 500). Pure, iterative, no I/O.
 */

/**
 * Deepest nesting of a JSON body, counting the body itself as level 1. A message's tool
 * input sits at level 6 (body → messages → message → content → part → input), which
 * leaves it 58 levels of its own: far more than any real tool schema uses. Each line of
 * an imported agent log (and each JSON string inside it, such as a tool call's
 * `arguments`) is held to the same limit.
 */
export const MAX_JSON_DEPTH = 64

interface Frame {
  value: object
  depth: number
  parent: Frame | undefined
  key: string | number
}

function pathOf(frame: Frame, root: string): string {
  const keys: (string | number)[] = []
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) keys.push(f.key)
  let out = root
  for (let i = keys.length - 1; i >= 0; i--) {
    const k = keys[i]!
    out += typeof k === 'number' ? `[${k}]` : /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`
  }
  return out
}

/**
 * Whether a string is JSON text nested deeper than `max` levels. The engine parses
 * JSON-looking strings (OpenAI tool arguments, tool results) and walks the result
 * recursively, so these count too. A bracket scan first (cheap, no allocation); only a
 * string over the limit is parsed (V8's JSON.parse is iterative), so text that merely
 * starts with brackets and is not JSON is left alone, as the engine leaves it.
 */
function jsonTextTooDeep(s: string, max: number): boolean {
  let i = 0
  while (i < s.length && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 10 || s.charCodeAt(i) === 13 || s.charCodeAt(i) === 9)) i++
  const first = s.charCodeAt(i)
  if (first !== 123 && first !== 91) return false
  let depth = 0
  let inString = false
  let over = false
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 || c === 91) {
      if (++depth > max) {
        over = true
        break
      }
    } else if (c === 125 || c === 93) depth--
  }
  if (!over) return false
  try {
    JSON.parse(s)
    return true
  } catch {
    return false
  }
}

/** What a body's one walk found: nothing, a value nested too deep, or a prototype-poisoning key. */
export type JsonVerdict = 'ok' | 'too-deep' | 'poisoned'

/**
 * One walk over a parsed body that allocates nothing per node (no key arrays, no frames
 * with parents): whether any value is nested deeper than `max` levels, as findTooDeep()
 * defines it (which runs only when this says so, to name the path), and whether an object
 * has a `__proto__` key or a `constructor` key holding a `prototype`: the keys a later
 * object merge could turn into prototype pollution. JSON.parse makes them plain own
 * properties; like fastify's default parser (secure-json-parse, which this replaces:
 * the walk is needed for the depth anyway), such a body is refused.
 */
export function inspectJson(value: unknown, max: number = MAX_JSON_DEPTH, textMax: number = max): JsonVerdict {
  if (typeof value === 'string') return jsonTextTooDeep(value, textMax) ? 'too-deep' : 'ok'
  if (value === null || typeof value !== 'object') return 'ok'
  const values: object[] = [value]
  const depths: number[] = [1]
  let verdict: JsonVerdict = 'ok'
  while (values.length > 0) {
    const v = values.pop()!
    const depth = depths.pop()!
    if (depth > max) return 'too-deep'
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const child: unknown = v[i]
        if (typeof child === 'string') {
          if (jsonTextTooDeep(child, textMax)) return 'too-deep'
        } else if (child !== null && typeof child === 'object') {
          values.push(child)
          depths.push(depth + 1)
        }
      }
    } else {
      for (const key in v) {
        const child: unknown = (v as Record<string, unknown>)[key]
        // Recorded, not returned: a too-deep value anywhere is the more specific answer.
        if (key === '__proto__' || (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype'))) verdict = 'poisoned'
        if (typeof child === 'string') {
          if (jsonTextTooDeep(child, textMax)) return 'too-deep'
        } else if (child !== null && typeof child === 'object') {
          values.push(child)
          depths.push(depth + 1)
        }
      }
    }
  }
  return verdict
}

/**
 * Whether any value is nested deeper than `max` levels, or any string holds JSON text
 * nested deeper than `textMax` on its own (inspectJson's depth half).
 */
export function isTooDeep(value: unknown, max: number = MAX_JSON_DEPTH, textMax: number = max): boolean {
  return inspectJson(value, max, textMax) === 'too-deep'
}

/**
 * Path of the first value nested deeper than `max` levels (depth-first, in document
 * order), or undefined: a container below level `max`, or a string holding JSON text
 * nested deeper than `textMax` (default `max`) on its own. Iterative with an explicit stack, so it cannot
 * overflow itself.
 */
export function findTooDeep(value: unknown, max: number = MAX_JSON_DEPTH, root = 'body', textMax: number = max): { path: string; inString: boolean } | undefined {
  if (typeof value === 'string') return jsonTextTooDeep(value, textMax) ? { path: root, inString: true } : undefined
  if (value === null || typeof value !== 'object') return undefined
  const stack: Frame[] = [{ value, depth: 1, parent: undefined, key: '' }]
  while (stack.length > 0) {
    const frame = stack.pop()!
    if (frame.depth > max) return { path: pathOf(frame, root), inString: false }
    const v = frame.value
    const keys: (string | number)[] = Array.isArray(v) ? v.map((_, i) => i) : Object.keys(v)
    // Strings first, in order (they are leaves); containers pushed in reverse so the first is visited first.
    for (const key of keys) {
      const child: unknown = (v as Record<string | number, unknown>)[key]
      if (typeof child === 'string' && jsonTextTooDeep(child, textMax)) return { path: pathOf({ value: v, depth: frame.depth + 1, parent: frame, key }, root), inString: true }
    }
    for (let i = keys.length - 1; i >= 0; i--) {
      const child: unknown = (v as Record<string | number, unknown>)[keys[i]!]
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: frame.depth + 1, parent: frame, key: keys[i]! })
    }
  }
  return undefined
}
