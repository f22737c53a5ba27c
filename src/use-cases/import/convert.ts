/**
 * POST /import's conversion (the compute task `import`): an agent log through the
 * importer (src/engine/import), input that is no log at all as the API's 400. Pure, so
 * the compute pool runs it in a worker thread when the body is large (./import.ts).
 */
import type { z } from 'zod'
import { importLog, ImportError, type ImportResult } from '../../engine/import/index.ts'
import { ApiError, describeError } from '../../errors.ts'
import type { importBody } from '../shapes/import.ts'

/** POST /import's body, as the route validated it (src/use-cases/shapes/import.ts). */
export type ImportRequest = z.infer<typeof importBody>

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
