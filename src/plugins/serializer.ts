/**
 * Response serialization: zod schemas (which document the API) compiled once to JSON
 * Schema and then to fast-json-stringify, fastify's own serializer. The zod type
 * provider's default serializer re-validates every response with zod before
 * JSON.stringify, which cost ~7% of /estimate's throughput in the benchmark; route
 * handlers are typed against the same schemas, so the check is redundant at run time.
 * Schemas fast-json-stringify cannot compile fall back to JSON.stringify.
 */
import fastJson from 'fast-json-stringify'
import type { FastifySchemaCompiler } from 'fastify'
import { z } from 'zod'

type Serializer = (data: unknown) => string

export const fastSerializerCompiler = (({ schema }: { schema: unknown }): Serializer => {
  if (!(schema instanceof z.ZodType)) return (data) => JSON.stringify(data)
  try {
    const jsonSchema = z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any', reused: 'inline' })
    return fastJson(jsonSchema as Parameters<typeof fastJson>[0]) as Serializer
  } catch {
    return (data) => JSON.stringify(data)
  }
}) as unknown as FastifySchemaCompiler<unknown>
