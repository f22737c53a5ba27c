/**
 * The one error shape of the API: `{ error, message, issues?, requestId }`.
 * `error` is a stable machine code; `message` is for humans; `issues` lists
 * validation problems with their paths.
 */
import { z } from 'zod'
import { CompactionError } from './engine/compaction/verify.ts'
import { ImportError } from './engine/import/types.ts'
import { MessageFormatError } from './engine/messages/errors.ts'
import { SummarizerSelectionError } from './providers/summarizer-clients.ts'

export interface ErrorIssue {
  path: string
  message: string
}

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly issues?: ErrorIssue[],
    /** Extra fields merged into the body (e.g. token numbers for 422). */
    readonly details?: Record<string, unknown>,
    /** Response headers sent with the error (e.g. Retry-After on a 503 overloaded). */
    readonly headers?: Record<string, string>,
  ) {
    super(message)
  }
}

export const errorResponseSchema = z
  .object({
    error: z.string().describe('Stable error code, e.g. `validation_error`, `invalid_messages`, `unauthorized`.'),
    message: z.string().describe('Human-readable explanation.'),
    issues: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .describe('For validation errors: each problem with the path of the offending field.'),
    requestId: z.string().optional().describe('Echo of the `x-request-id` of this request, for support.'),
  })
  .loose()
  .describe('Error body returned with every 4xx/5xx status.')
  .meta({
    id: 'Error',
    example: {
      error: 'invalid_messages',
      message: 'messages[3].tool_call_id: required on role "tool"',
      issues: [{ path: 'messages[3].tool_call_id', message: 'required on role "tool"' }],
      requestId: 'req-1',
    },
  })

/** Standard error responses to attach to route schemas (documents them in OpenAPI). */
export const standardErrorResponses = {
  400: errorResponseSchema,
  401: errorResponseSchema,
  413: errorResponseSchema,
  429: errorResponseSchema,
  500: errorResponseSchema,
  503: errorResponseSchema,
} as const

/** An ApiError as plain data (what a compute thread sends back, and what the HTTP layer sends). */
export function apiErrorFields(err: ApiError): DescribedError {
  return {
    statusCode: err.statusCode,
    code: err.code,
    message: err.message,
    ...(err.issues ? { issues: err.issues } : {}),
    ...(err.details ? { details: err.details } : {}),
    ...(err.headers ? { headers: err.headers } : {}),
  }
}

/** A failure the caller can act on, described once for the HTTP layer and the in-process library alike. */
export interface DescribedError {
  statusCode: number
  code: string
  message: string
  issues?: ErrorIssue[]
  /** Extra fields of the error body (e.g. the token numbers of a 422). */
  details?: Record<string, unknown>
  headers?: Record<string, string>
}

/**
 * The caller's mistake (or an unreachable budget) behind `err`, or undefined for anything
 * unexpected. Paths are those of the HTTP API (`body.summarizer.model`, `messages[3].role`).
 */
export function describeError(err: unknown): DescribedError | undefined {
  if (err instanceof ApiError) return apiErrorFields(err)
  if (err instanceof MessageFormatError) return { statusCode: 400, code: 'invalid_messages', message: err.message, issues: [{ path: err.field, message: err.reason }] }
  if (err instanceof CompactionError) {
    // The numbers (targetTokens, minimumTokens, ...) let the caller pick a reachable target.
    if (err.code === 'budget_unreachable') return { statusCode: 422, code: err.code, message: err.message, details: err.details }
    const problems = Array.isArray(err.details.problems) ? (err.details.problems as { index: number; callId: string; problem: string }[]) : []
    return {
      statusCode: 400,
      code: err.code,
      message: err.message,
      issues: problems.map((p) => ({ path: `messages[${p.index}]`, message: `${p.problem} (tool call id ${p.callId})` })),
    }
  }
  if (err instanceof SummarizerSelectionError) {
    return { statusCode: 400, code: 'invalid_summarizer', message: err.message, issues: [{ path: `body.summarizer.${err.field}`, message: err.message }] }
  }
  if (err instanceof ImportError) {
    return { statusCode: 400, code: 'invalid_log', message: err.message, issues: [{ path: `body.${err.field}`, message: err.message.replace(/^\w+: /, '') }] }
  }
  return undefined
}
