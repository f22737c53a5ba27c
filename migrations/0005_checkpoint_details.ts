/**
 * checkpoint_summaries: what the dashboard shows of each compaction besides its token
 * counts: the budget it compacted to (target_tokens), the model it was counted for, how
 * long it took (duration_ms) and the summary's own size (summary_tokens). Nullable:
 * rows stored before this migration have none of them.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('checkpoint_summaries')
    .addColumn('target_tokens', 'integer')
    .addColumn('model', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('summary_tokens', 'integer')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table checkpoint_summaries drop column target_tokens, drop column model, drop column duration_ms, drop column summary_tokens`.execute(db)
}
