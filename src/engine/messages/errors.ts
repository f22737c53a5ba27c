/**
 * The error every message adapter throws when the caller's messages cannot be used.
 *
 * It names the message (`index`) and the exact place (`field`, a path such as
 * `messages[3].content[1].tool_use_id`) so an API user can fix the request without
 * guessing. The HTTP layer turns it into a 400 response.
 */
export class MessageFormatError extends Error {
  override readonly name = 'MessageFormatError'
  /** Index of the offending message in `messages`; null for request-level problems (`system`, `format`, `messages` itself). */
  readonly index: number | null
  /** Path of the offending field, e.g. `messages[3].tool_calls[0].function.arguments`. */
  readonly field: string
  /** What is wrong, phrased for the API user (without the field prefix). */
  readonly reason: string

  constructor(field: string, reason: string, index: number | null = null) {
    super(`${field}: ${reason}`)
    this.field = field
    this.reason = reason
    this.index = index
  }

  /** Shape used in API error bodies. */
  toJSON(): { error: 'invalid_messages'; message: string; index: number | null; field: string } {
    return { error: 'invalid_messages', message: this.message, index: this.index, field: this.field }
  }
}
