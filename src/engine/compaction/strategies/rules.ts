/**
 * `rules`: the offline structured summary (summarizers/rules.ts), deterministic and free.
 * Beside `mask` it also condenses the kept turns and logs the summarised ones (condense.ts).
 * It cannot fail, so every chain ends with it (then truncate).
 */
import { rulesSummarizer } from '../summarizers/rules.ts'
import { condenseForm } from './condense.ts'
import type { Strategy } from './strategy.ts'

export const rulesStrategy = {
  name: 'rules',
  description: 'offline structured summary (task, files, failures, decisions, next step), deterministic and free',
  needsLlm: false,
  keepAlongside: condenseForm,
  summarizer: () => rulesSummarizer,
  fallback: true,
} as const satisfies Strategy
