/**
 * `mask`: observation masking (transforms/mask.ts). Old tool results become a one-line
 * digest and the calls stay, so the agent still sees what it did. It writes no summary:
 * alone, a conversation masking cannot fit is summarised by the fallbacks.
 */
import { maskRange } from '../transforms/mask.ts'
import type { KeptForm, Strategy } from './strategy.ts'

export const maskForm: KeptForm = {
  action: 'mask',
  reason: 'tool results masked',
  rank: 1,
  actionLog: false,
  shrink: (r) => maskRange(r.messages, r.from, r.to, r.adapter, r.counter, r.options, r.exempt).messages,
}

export const maskStrategy = {
  name: 'mask',
  description: 'replace old tool results with short placeholders; the calls stay',
  needsLlm: false,
  keep: maskForm,
} as const satisfies Strategy
