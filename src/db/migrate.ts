import { Migrator, type Kysely, type MigrationResultSet } from 'kysely'
import { migrations } from '../../migrations/index.ts'

function migrator(db: Kysely<any>): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => migrations } })
}

/** Apply pending migrations. Throws with the failing migration's name on error. */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const result: MigrationResultSet = await migrator(db).migrateToLatest()
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName
    const cause = result.error instanceof Error ? result.error.message : String(result.error)
    throw new Error(`migration ${failed ?? '(unknown)'} failed: ${cause}`)
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

/** True when every known migration has been applied. */
export async function migrationsApplied(db: Kysely<any>): Promise<boolean> {
  const applied = await migrator(db).getMigrations()
  return applied.every((m) => m.executedAt !== undefined)
}
