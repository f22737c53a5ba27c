/**
 * What every part of the sessions repository shares: the handle its functions run on
 * (the app's Kysely instance, or a transaction's: inside one pass the handle, PGlite has
 * one connection) and how column values read back from the driver.
 */
import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/schema.ts'

export type Db = Kysely<Database> | Transaction<Database>

/** json/jsonb arrives parsed from pg; be tolerant of a driver that hands back text. */
export function parseJson(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null
  try {
    return JSON.parse(v)
  } catch {
    return v
  }
}

export function toDate(v: Date | string): Date {
  return v instanceof Date ? v : new Date(v)
}

/** PostgreSQL unique_violation (also raised by PGlite). */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505'
}
