/**
 * The default pipeline, `mask` + `rules`: kept middle turns are condensed (tool results
 * masked, large inputs and long prose cut to what identifies them: transforms/condense.ts)
 * and the older turns the summary replaces become one line each in its action log. The
 * `rules` strategy brings this form; it replaces `mask`'s whenever both are asked for. It
 * is also the last resort for the final turn when nothing else fits.
 */
import { condenseRange } from '../transforms/condense.ts'
import type { KeptForm } from './strategy.ts'

export const condenseForm: KeptForm = {
  action: 'condense',
  reason: 'tool results masked, inputs and prose condensed',
  rank: 2,
  actionLog: true,
  shrink: (r) => condenseRange(r.messages, r.from, r.to, r.adapter, r.counter, r.options, r.exempt),
}
