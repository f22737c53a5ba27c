/** POST /display's request and response: any format's messages in one display form. */
import { z } from 'zod'
import { formatEnum, formatField, messagesField, systemField } from './common.ts'

const displayMessage = z
  .object({
    role: z.string().describe('The role: system, developer, user, assistant or tool.'),
    text: z.string().describe('Its text, reasoning (prefixed "(reasoning) ") and images ("[image]"), one a line.'),
    calls: z.array(z.object({ id: z.string(), name: z.string(), args: z.string().describe('The arguments as sent, serialized.') })).describe('Its tool calls.'),
    results: z.array(z.object({ id: z.string().describe('The call it answers.'), text: z.string(), isError: z.boolean().optional() })).describe('Its tool results.'),
  })
  .meta({ id: 'DisplayMessage' })

export const displayBody = z.strictObject({ messages: messagesField, format: formatField, system: systemField }).meta({ id: 'DisplayRequest' })

export const displayResponse = z
  .object({
    format: formatEnum.describe('The detected (or given) format.'),
    system: displayMessage.optional().describe('The top-level system prompt, when given.'),
    messages: z.array(displayMessage),
  })
  .meta({ id: 'DisplayResponse' })

export type DisplayRequest = z.infer<typeof displayBody>
export type DisplayResult = z.infer<typeof displayResponse>

export const formatsResponse = z
  .object({
    formats: z
      .array(z.object({ name: formatEnum.describe('The value of `format` in requests and responses.'), label: z.string().describe('Its name for people.') }))
      .describe('Every message format the API reads and writes, in the order the docs list them.'),
    default: formatEnum.describe('The format assumed when nothing can be detected (a plain user/assistant string array).'),
  })
  .meta({ id: 'FormatsResponse', example: { formats: [{ name: 'openai', label: 'OpenAI' }, { name: 'anthropic', label: 'Anthropic' }], default: 'openai' } })

export type FormatsList = z.infer<typeof formatsResponse>
