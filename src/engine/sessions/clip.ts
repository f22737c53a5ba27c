/**
 * clipKeepingPaths (facts/text.ts) for text of any size. Its path search is quadratic in
 * the length of a token without spaces (300k characters of pasted output take minutes),
 * so text far longer than the result is first cut at a space well past `max`: only the
 * first `max` characters can ever be kept, and a cut at a space splits no path or URL.
 */
import { clipKeepingPaths } from '../facts/text.ts'

export function clipText(s: string, max: number, opts: { keepHead?: number } = {}): string {
  const limit = max * 3 + 200
  if (s.length <= limit) return clipKeepingPaths(s, max, opts)
  const space = s.lastIndexOf(' ', limit)
  // One giant token: no path in it survives a clip to `max` anyway.
  return clipKeepingPaths(space > max ? s.slice(0, space) : `${s.slice(0, max)}…`, max, opts)
}
