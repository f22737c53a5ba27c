/**
 * A compute task's result across the thread boundary (src/plugins/compute-worker.ts runs
 * it, src/plugins/compute-pool.ts settles it): the structured clone keeps an Error's
 * message, not its class or fields, so errors cross as data and are rebuilt by
 * fromWire(): a pooled 400 or 422 is the same response as an inline one.
 */
import type { Config } from '../config.ts'
import { CompactionError } from '../engine/compaction/compact.ts'
import { MessageFormatError } from '../engine/messages/errors.ts'
import { ApiError, apiErrorFields, type DescribedError } from '../errors.ts'
import { computeTasks, runInline, type TaskEnv, type TaskName } from '../use-cases/compute.ts'
import type { ThreadCacheStats } from './token-cache-store.ts'


export type WireError =
  | ({ kind: 'api' } & DescribedError)
  | { kind: 'message_format'; field: string; reason: string; index: number | null }
  | { kind: 'compaction'; code: CompactionError['code']; message: string; details: Record<string, unknown> }
  | { kind: 'other'; name: string; message: string; stack?: string }

export type TaskOutcome<T = unknown> = ({ ok: true; value: T } | { ok: false; error: WireError }) & {
  /** The thread's token-count cache during the task (src/plugins/compute-worker.ts). */
  tokenCache?: ThreadCacheStats
}

/** The worker thread's side: a task's result, or its error as data. */
export async function runTask(config: Config, task: TaskName, input: unknown, env: TaskEnv = {}): Promise<TaskOutcome> {
  try {
    if (!Object.hasOwn(computeTasks, task)) throw new Error(`unknown compute task ${JSON.stringify(task)}`)
    return { ok: true, value: await runInline(config, task, input as never, env) }
  } catch (err) {
    return { ok: false, error: toWire(err) }
  }
}

export function toWire(err: unknown): WireError {
  if (err instanceof ApiError) return { kind: 'api', ...apiErrorFields(err) }
  if (err instanceof MessageFormatError) return { kind: 'message_format', field: err.field, reason: err.reason, index: err.index }
  if (err instanceof CompactionError) return { kind: 'compaction', code: err.code, message: err.message, details: err.details }
  const e = err as { name?: unknown; message?: unknown; stack?: unknown }
  return { kind: 'other', name: String(e?.name ?? 'Error'), message: String(e?.message ?? err), ...(typeof e?.stack === 'string' ? { stack: e.stack } : {}) }
}

/** The main thread's side: the error the task threw, as the class the error handler knows. */
export function fromWire(w: WireError): Error {
  switch (w.kind) {
    case 'api':
      return new ApiError(w.statusCode, w.code, w.message, w.issues, w.details, w.headers)
    case 'message_format':
      return new MessageFormatError(w.field, w.reason, w.index)
    case 'compaction':
      return new CompactionError(w.code, w.message, w.details)
    default: {
      const err = new Error(w.message)
      err.name = w.name
      if (w.stack) err.stack = w.stack
      return err
    }
  }
}
