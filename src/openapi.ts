/** The OpenAPI document as the code defines it (no server, in-memory database). */
import { build } from './app.ts'
import { testConfig } from './config.ts'
import type { DatabaseHandle } from './db/database.ts'
import { openDatabase } from './db/database.ts'

export async function generateOpenApiYaml(database?: DatabaseHandle): Promise<string> {
  const handle = database ?? (await openDatabase({ pgliteDataDir: 'memory://' }))
  const app = await build({ config: testConfig(), database: handle, logger: false })
  try {
    await app.ready()
    return app.swagger({ yaml: true })
  } finally {
    await app.close()
    if (!database) await handle.close()
  }
}
