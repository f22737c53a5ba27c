/**
 * The held-out TEST split of the continuation probes (issue 22): probes over five sessions
 * that no engine rule was tuned on, written before any engine change for issue 22, from
 * the sessions themselves and blind to compactd's output. The engine is never changed to
 * pass one of them: they are read only to report (`npx tsx test/eval/quality.ts probes`).
 * Kinds as the tuning probes; `facet` marks the kinds issue 22 names (findings, research
 * results, rejected attempts, explanations, repository state).
 */
import type { Probe } from '../core.ts'
import { probes as django13265 } from './django-13265.ts'
import { probes as sqlfluff1733 } from './sqlfluff-1733.ts'
import { probes as sqlfluff1517 } from './sqlfluff-1517.ts'
import { probes as marshmallow1867 } from './marshmallow-1867.ts'
import { probes as pydicom1458 } from './pydicom-1458.ts'

export const TEST_PROBES: readonly Probe[] = [...django13265, ...sqlfluff1733, ...sqlfluff1517, ...marshmallow1867, ...pydicom1458]
