/**
 * Sessions with rolling summaries (issue 4, seeds 000 and 003).
 *
 * - sessions: one row per (tenant, session id), its settings as jsonb.
 * - session_messages: every appended message, in order (seq), with its status in the
 *   sliding window: 'window' (recent), 'evicted' (fell out, awaiting summary) or
 *   'summarized' (folded into a summary version). `raw` is `json`, not `jsonb`, so the
 *   caller's object comes back with its keys in the order they were sent.
 * - session_summaries: every version of the rolling summary; the current one is the
 *   highest version. The primary key is the compare-and-set: two writers of one version
 *   cannot both commit.
 * - summary_update_queue: at most one pending background update per session (the
 *   primary key), claimed under a lease with FOR UPDATE SKIP LOCKED.
 * - summary_update_runs: an audit row per update; the partial unique index allows one
 *   unfinished run per session, so the database itself refuses concurrent updates.
 * - idempotency_keys: the stored response of each POST /messages with an Idempotency-Key.
 * - scheduler_state: singleton jobs shared by every instance (daily aging).
 *
 * Every session-scoped table carries tenant_id and cascades from sessions, so deleting a
 * session deletes everything it owns in one statement.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('sessions_pkey', ['tenant_id', 'id'])
    .execute()

  const sessionFk = ['tenant_id', 'session_id'] as const

  await db.schema
    .createTable('session_messages')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('raw', 'json', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('tokens', 'integer', (c) => c.notNull())
    .addColumn('message_at', 'timestamptz', (c) => c.notNull())
    .addColumn('appended_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('window').check(sql`status in ('window', 'evicted', 'summarized')`))
    .addPrimaryKeyConstraint('session_messages_pkey', ['tenant_id', 'session_id', 'seq'])
    .addForeignKeyConstraint('session_messages_session_fkey', [...sessionFk], 'sessions', ['tenant_id', 'id'], (fk) => fk.onDelete('cascade'))
    .execute()
  // The window and the evicted messages awaiting summary: the only ones read on the hot path.
  await db.schema
    .createIndex('session_messages_unsummarized_idx')
    .on('session_messages')
    .columns(['tenant_id', 'session_id', 'status', 'seq'])
    .where(sql.ref('status'), '<>', 'summarized')
    .execute()

  await db.schema
    .createTable('session_summaries')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().check(sql`version > 0`))
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('tokens', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('background', 'manual')`))
    .addPrimaryKeyConstraint('session_summaries_pkey', ['tenant_id', 'session_id', 'version'])
    .addForeignKeyConstraint('session_summaries_session_fkey', [...sessionFk], 'sessions', ['tenant_id', 'id'], (fk) => fk.onDelete('cascade'))
    .execute()

  await db.schema
    .createTable('summary_update_queue')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('priority', 'integer', (c) => c.notNull())
    .addColumn('queued_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('available_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'timestamptz')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending').check(sql`status in ('pending', 'failed')`))
    .addColumn('last_error', 'text')
    .addPrimaryKeyConstraint('summary_update_queue_pkey', ['tenant_id', 'session_id'])
    .addForeignKeyConstraint('summary_update_queue_session_fkey', [...sessionFk], 'sessions', ['tenant_id', 'id'], (fk) => fk.onDelete('cascade'))
    .execute()
  // The claim query's order.
  await db.schema
    .createIndex('summary_update_queue_claim_idx')
    .on('summary_update_queue')
    .expression(sql`priority desc, available_at`)
    .where(sql.ref('status'), '=', 'pending')
    .execute()

  await db.schema
    .createTable('summary_update_runs')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('tenant_id', 'uuid', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('worker', 'text', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn('finished_at', 'timestamptz')
    .addColumn('mode', 'text')
    .addColumn('from_version', 'integer')
    .addColumn('to_version', 'integer')
    .addColumn('folded_from_seq', 'bigint')
    .addColumn('folded_to_seq', 'bigint')
    .addColumn('folded_messages', 'integer')
    .addForeignKeyConstraint('summary_update_runs_session_fkey', [...sessionFk], 'sessions', ['tenant_id', 'id'], (fk) => fk.onDelete('cascade'))
    .execute()
  await db.schema.createIndex('summary_update_runs_session_idx').on('summary_update_runs').columns(['tenant_id', 'session_id', 'started_at']).execute()
  // One unfinished update per session, enforced by the database.
  await db.schema
    .createIndex('summary_update_runs_one_running_idx')
    .unique()
    .on('summary_update_runs')
    .columns(['tenant_id', 'session_id'])
    .where(sql.ref('finished_at'), 'is', null)
    .execute()

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('response', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('idempotency_keys_pkey', ['tenant_id', 'session_id', 'key'])
    .addForeignKeyConstraint('idempotency_keys_session_fkey', [...sessionFk], 'sessions', ['tenant_id', 'id'], (fk) => fk.onDelete('cascade'))
    .execute()

  await db.schema
    .createTable('scheduler_state')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('last_run_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await sql`insert into scheduler_state (name) values ('daily_aging')`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['scheduler_state', 'idempotency_keys', 'summary_update_runs', 'summary_update_queue', 'session_summaries', 'session_messages', 'sessions']) {
    await db.schema.dropTable(table).execute()
  }
}
