/**
 * compaction_breakers (issue 24): per session (stored or proxied, as checkpoints are),
 * the circuit breaker's state: its recent automatic compactions and whether it is open
 * (src/engine/compaction/breaker.ts). A session without a row is closed.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table compaction_breakers (
      tenant_id text not null,
      session_id text not null,
      state jsonb not null,
      updated_at timestamptz not null default now(),
      primary key (tenant_id, session_id)
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table compaction_breakers`.execute(db)
}
