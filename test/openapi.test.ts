import fs from 'node:fs'
import { Validator } from '@seriousme/openapi-schema-validator'
import t from 'tap'
import { parse } from 'yaml'
import { generateOpenApiYaml } from '../src/openapi.ts'
import { createTestDatabase } from './helpers/databases.ts'

const committedPath = new URL('../openapi.yaml', import.meta.url)

t.test('openapi.yaml is what the code generates (run `npm run openapi` after changing routes)', async (t) => {
  const database = await createTestDatabase('pglite')
  t.teardown(() => database.close())
  const generated = await generateOpenApiYaml(database)
  const committed = fs.readFileSync(committedPath, 'utf8')
  t.equal(committed, generated)
})

t.test('openapi.yaml is valid OpenAPI 3.1 and documents every operation', async (t) => {
  const doc = parse(fs.readFileSync(committedPath, 'utf8'))
  const validator = new Validator()
  const result = await validator.validate(doc)
  t.same(result.errors ?? [], [], 'no schema errors')
  t.equal(result.valid, true)
  t.equal(validator.version, '3.1')
  for (const [route, ops] of Object.entries<Record<string, { summary?: string; responses?: object }>>(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      t.ok(op.summary, `${method.toUpperCase()} ${route} has a summary`)
      t.ok(op.responses && Object.keys(op.responses).length > 0, `${method.toUpperCase()} ${route} documents responses`)
    }
  }
  const resolve = (s: { $ref?: string }) => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()!] : s)
  const estimate = doc.paths['/estimate'].post
  const body = resolve(estimate.requestBody.content['application/json'].schema)
  t.ok(body.example ?? body.examples, 'the request body has an example')
  for (const [name, prop] of Object.entries<{ description?: string }>(body.properties)) t.ok(prop.description, `field ${name} is described`)
})
