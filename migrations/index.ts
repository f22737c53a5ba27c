/**
 * Every migration, in order. Imported statically (not read from disk) so the bundled
 * server and the TypeScript sources run the same list. Add new files here.
 */
import type { Migration } from 'kysely'
import * as m0001 from './0001_tenants_and_api_keys.ts'
import * as m0002 from './0002_checkpoints.ts'
import * as m0003 from './0003_sessions.ts'
import * as m0004 from './0004_queue_generation.ts'
import * as m0005 from './0005_checkpoint_details.ts'
import * as m0006 from './0006_archive.ts'
import * as m0007 from './0007_proxy_prefixes.ts'
import * as m0008 from './0008_archive_raw_uncompressed.ts'
import * as m0009 from './0009_compaction_breakers.ts'
import * as m0010 from './0010_archive_backfill.ts'

export const migrations: Record<string, Migration> = {
  '0001_tenants_and_api_keys': m0001,
  '0002_checkpoints': m0002,
  '0003_sessions': m0003,
  '0004_queue_generation': m0004,
  '0005_checkpoint_details': m0005,
  '0006_archive': m0006,
  '0007_proxy_prefixes': m0007,
  '0008_archive_raw_uncompressed': m0008,
  '0009_compaction_breakers': m0009,
  '0010_archive_backfill': m0010,
}
