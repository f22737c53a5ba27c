/** Request fields shared by several routes, with their documentation. */
import { z } from 'zod'
import { FORMAT_NAMES } from '../../engine/messages/registry.ts'

/** A message format's name: the registry's list (src/engine/messages/registry.ts). */
export const formatEnum = z.enum(FORMAT_NAMES)

export const messagesField = z
  .array(z.unknown())
  .max(100_000)
  .describe(
    'The conversation, in OpenAI Chat Completions, Anthropic Messages, Vercel AI SDK ModelMessage or OpenAI Responses (input items) format. The format is detected; `format` overrides.',
  )

export const formatField = formatEnum
  .optional()
  .describe('Message format. Detected automatically when omitted; a plain user/assistant string array is read as openai (identical in every format).')

export const modelField = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe('Model the conversation is for (e.g. gpt-4o, claude-sonnet-4-5). Sets the limits and the tokenizer. Default: DEFAULT_MODEL.')

export const systemField = z
  .union([z.string(), z.array(z.unknown())])
  .optional()
  .describe('Anthropic-style top-level system prompt (string or text blocks). With other formats it counts as a leading system message.')

/** Session ids are the caller's: short, printable, safe in URLs. */
export const sessionIdSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9._:-]+$/, 'use 1-200 characters from A-Z a-z 0-9 . _ : -')

export const thresholdOverrideFields = {
  contextLimit: z.int().positive().max(100_000_000).optional().describe("Override the model's context window (e.g. for an unknown model)."),
  systemReserve: z.int().min(0).optional().describe('Tokens reserved for the system prompt and tools. Default 2000 (COMPACTION_SYSTEM_RESERVE).'),
  outputReserve: z.int().min(0).optional().describe('Tokens reserved for the reply. Default 4000 (COMPACTION_OUTPUT_RESERVE).'),
  safetyBuffer: z.int().min(0).optional().describe('Tokens kept free for estimation error. Default 5000 (COMPACTION_SAFETY_BUFFER).'),
  thresholdPercent: z.number().gt(0).max(1).optional().describe('Fraction of the available window at which to compact. Default 0.8.'),
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/**
 * Path (zod path segments) of the first string holding a lone UTF-16 surrogate, or
 * undefined. Iterative: bodies are depth-limited at the edge, but this must not care.
 */
function loneSurrogatePath(value: unknown): (string | number)[] | undefined {
  const stack: { v: unknown; path: (string | number)[] }[] = [{ v: value, path: [] }]
  while (stack.length > 0) {
    const { v, path } = stack.pop()!
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return path
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: [...path, i] })
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v)
      for (let i = keys.length - 1; i >= 0; i--) stack.push({ v: (v as Record<string, unknown>)[keys[i]!], path: [...path, keys[i]!] })
    }
  }
  return undefined
}

/**
 * For fields stored as text or jsonb (session settings, summaries): a lone surrogate has
 * no UTF-8 encoding, so PostgreSQL refuses it (jsonb: an error) or replaces it (text:
 * U+FFFD), and what was sent could never read back. A 400 naming the string instead.
 * Messages are stored as `json`, which keeps the escape, so they need no such check.
 */
export function storable<T extends z.ZodType>(schema: T): T {
  return schema.superRefine((value, ctx) => {
    const path = loneSurrogatePath(value)
    if (path) ctx.addIssue({ code: 'custom', path, message: 'contains a lone UTF-16 surrogate (not valid Unicode), which cannot be stored' })
  }) as T
}
