/**
 * POST /import's domain: an agent log through the importer (src/engine/import), input
 * that is no log at all as the API's 400. Pure, so the compute pool runs it in a worker
 * thread (src/services/compute-tasks.ts) when the body is large.
 */
import { importLog, ImportError, type ImportResult, type ImportScope, type ImportSource } from '../engine/import/index.ts'
import type { MessageFormat } from '../engine/messages/canonical.ts'
import { ApiError, describeError } from '../errors.ts'

export interface ImportRequest {
  log: unknown
  source?: ImportSource
  format?: MessageFormat
  scope?: ImportScope
}

export function importAgentLog(input: ImportRequest): ImportResult {
  try {
    return importLog(input.log, {
      ...(input.source ? { source: input.source } : {}),
      ...(input.format ? { format: input.format } : {}),
      ...(input.scope ? { scope: input.scope } : {}),
    })
  } catch (err) {
    // As an ApiError, which crosses from a compute thread intact (describeError words it).
    const described = err instanceof ImportError ? describeError(err) : undefined
    if (described) throw new ApiError(described.statusCode, described.code, described.message, described.issues)
    throw err
  }
}
