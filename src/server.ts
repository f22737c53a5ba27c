/**
 * Entry point: load config, build the app, listen, and shut down gracefully on
 * SIGTERM/SIGINT (stop accepting, drain in-flight requests, close the database).
 */
import closeWithGrace from 'close-with-grace'
import { build } from './app.ts'
import { ConfigError, LOOPBACK_HOSTS, loadConfig } from './config.ts'

async function main(): Promise<void> {
  let config
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`compactd: ${err.message}\n`)
      process.exit(1)
    }
    throw err
  }
  const app = await build({ config })
  let host = config.HOST
  if (await app.authOpenMode()) {
    if (!LOOPBACK_HOSTS.has(host)) {
      app.log.warn({ requestedHost: host }, 'no API key exists: refusing to listen beyond loopback; create one with `npm run key:create -- --tenant NAME`')
      host = '127.0.0.1'
    }
    app.log.warn('no API key exists: running open in single-tenant mode on loopback only')
  }
  closeWithGrace({ delay: config.SHUTDOWN_TIMEOUT_MS }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error')
    else app.log.info({ signal }, 'shutting down: draining requests')
    await app.close()
  })
  await app.listen({ host, port: config.PORT })
}

main().catch((err) => {
  process.stderr.write(`compactd: failed to start: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(1)
})
