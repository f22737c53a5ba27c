/**
 * The document's three importance levels read off the engine's one importance scale
 * (facts/importance.ts), and the longest text an item is written with.
 */
import { IMPORTANCE } from '../facts/importance.ts'
import type { Importance } from './document.ts'

/** Longest text one item gets when written (fit.ts condenses under budget pressure). */
export const ITEM_MAX_CHARS = 600

/**
 * The shared scale (higher survives longer) → high / medium / low: instructions, the
 * task, unresolved failures and project changes are high; root causes, pending work,
 * earlier summaries and decisions medium; abandoned attempts, scratch files, passing
 * runs, commands, reads and searches low (compression drops those first).
 */
export function levelOf(score: number): Importance {
  return score >= IMPORTANCE.change ? 'high' : score >= IMPORTANCE.decision ? 'medium' : 'low'
}
