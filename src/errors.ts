/**
 * The one error shape of the API: `{ error, message, issues?, requestId }`.
 * `error` is a stable machine code; `message` is for humans; `issues` lists
 * validation problems with their paths.
 */
import { z } from 'zod'

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
