/**
 * summary_update_queue.generation: bumped by every enqueue that merges into an existing
 * entry. A worker completes (deletes) its entry only if the generation is the one it
 * claimed; an entry re-queued during the update (e.g. POST /summary/refresh while the
 * update computes outside its transaction) is released for another run instead of lost.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('summary_update_queue').addColumn('generation', 'integer', (c) => c.notNull().defaultTo(0)).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table summary_update_queue drop column generation`.execute(db)
}
