/**
 * checkpoint_summaries: one row per stored compaction of a session (seed 001), keyed by
 * (tenant_id, session_id, checkpoint_num). Numbers are assigned gap-free per session by
 * src/checkpoints/repository.ts under an advisory lock. `folded_from` lists the original
 * checkpoint numbers a "summary of summaries" row stands for (COMPACTION_MAX_CHECKPOINTS).
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('checkpoint_summaries')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('tenant_id', 'uuid', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('checkpoint_num', 'integer', (c) => c.notNull().check(sql`checkpoint_num > 0`))
    .addColumn('from_message_index', 'integer')
    .addColumn('to_message_index', 'integer')
    .addColumn('messages_compressed', 'integer')
    .addColumn('summary_content', 'text', (c) => c.notNull())
    .addColumn('key_facts', 'jsonb')
    .addColumn('original_tokens', 'integer')
    .addColumn('compressed_tokens', 'integer')
    .addColumn('compression_ratio', 'double precision')
    .addColumn('summary_cost_usd', 'double precision')
    .addColumn('strategy', 'text')
    .addColumn('round', 'integer')
    .addColumn('folded_from', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('checkpoint_summaries_session_num_key', ['tenant_id', 'session_id', 'checkpoint_num'])
    .execute()
  // Newest-first listing and max(checkpoint_num) of one session. (The unique constraint's
  // index has the same columns; this one matches the listing order and is kept explicit.)
  await db.schema
    .createIndex('checkpoint_summaries_session_num_desc_idx')
    .on('checkpoint_summaries')
    .expression(sql`tenant_id, session_id, checkpoint_num desc`)
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('checkpoint_summaries').execute()
}
