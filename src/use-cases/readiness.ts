/** GET /readyz: whether this instance can serve: the database answers and every migration is applied. */
import { sql } from 'kysely'
import { migrationsApplied } from '../db/migrate.ts'
import type { UseCaseDeps } from './deps.ts'

export type ReadinessDeps = Pick<UseCaseDeps, 'db'>

export function makeReadiness(deps: ReadinessDeps) {
  return async function readiness(): Promise<{ ready: true } | { ready: false; reason: 'migrations pending' | 'database unreachable' }> {
    try {
      await sql`select 1`.execute(deps.db)
      if (!(await migrationsApplied(deps.db))) return { ready: false, reason: 'migrations pending' }
      return { ready: true }
    } catch {
      return { ready: false, reason: 'database unreachable' }
    }
  }
}
