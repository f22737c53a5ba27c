/**
 * The token counts of appended messages (POST /sessions/:id/messages), by the session
 * model's counter: exact tokenization of a large append is CPU work, so the compute pool
 * (src/plugins/compute-pool.ts) runs it on a thread, or on the event loop when it is small.
 * A function of its input alone; the messages cross as structured-cloneable data.
 */
import type { Config } from '../../config.ts'
import type { CanonicalMessage } from '../../engine/messages/index.ts'
import { messageTokens, type MessageCountCache } from '../../engine/tokens/count.ts'
import { defaultCounter, modelFor } from '../model-budget.ts'

export interface AppendCountsInput {
  messages: CanonicalMessage[]
  /** The session's model (none: DEFAULT_MODEL). */
  model: string | undefined
}

export function computeAppendCounts(config: Config, input: AppendCountsInput, env: { tokenCache?: MessageCountCache } = {}): number[] {
  const counter = defaultCounter(modelFor(config, input.model), undefined, env.tokenCache)
  return input.messages.map((m) => messageTokens(m, counter))
}

/** The size of the messages' text in bytes, roughly (UTF-16 code units): what decides inline or pool. */
export function appendCountsBytes(messages: readonly CanonicalMessage[]): number {
  let n = 0
  for (const m of messages) for (const p of m.parts) n += p.type === 'tool-call' ? p.name.length + p.argsText.length : p.type === 'image' ? 0 : p.text.length
  return n
}
