/** npm run openapi: regenerate openapi.yaml from the routes' zod schemas. */
import fs from 'node:fs'
import { generateOpenApiYaml } from '../openapi.ts'

const yaml = await generateOpenApiYaml()
fs.writeFileSync(new URL('../../openapi.yaml', import.meta.url), yaml)
console.log(`openapi.yaml written (${yaml.length} bytes)`)
