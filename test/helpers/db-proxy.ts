/**
 * A loopback TCP proxy between the app and PostgreSQL, for fault injection
 * (test/faults.test.ts). The app's DATABASE_URL points at the proxy; the test decides
 * when the database "goes away":
 *
 *   cut()             destroys every open connection, both sides (the server rolls back
 *                     whatever transaction a connection had open; the client sees
 *                     "Connection terminated unexpectedly")
 *   refuse()          stops listening: new connections get ECONNREFUSED until restore()
 *   stall()           new connections are accepted and never answered (a network
 *                     partition, a host that is gone), until restore()
 *   cutWhen(sql, …)   cuts every connection at the moment a client sends a statement
 *                     whose text matches (the statement is not forwarded), or, with
 *                     `ackLost`, forwards it and cuts before the server's answer reaches
 *                     the client (a COMMIT that happened but was never acknowledged)
 *
 * Statements are read from the frontend protocol: a simple Query ('Q') or the Parse
 * ('P') of an extended query, which is how node-postgres sends SQL with parameters.
 */
import net from 'node:net'

export interface CutRule {
  /** Matched against the SQL text of each statement the client sends. */
  sql: RegExp
  /** Forward the statement, then cut before its answer reaches the client. */
  ackLost?: boolean
  /** Also refuse new connections after the cut (until restore()). */
  refuse?: boolean
  /** How many times the rule fires (default 1; Infinity: until removed). */
  times?: number
  /** Matching statements let through before it fires (default 0). */
  skip?: number
}

export interface DbProxy {
  readonly port: number
  /** postgres URL of `database` through the proxy. */
  url(database: string): string
  /** Open client connections. */
  readonly connections: number
  /** Statements seen (SQL text), in order; cleared by clearLog(). */
  readonly statements: string[]
  clearLog(): void
  cut(): void
  refuse(): Promise<void>
  /** Cuts every connection; new ones are accepted and then hang, unanswered, until restore(). */
  stall(): void
  restore(): Promise<void>
  /** Arms a rule: `fired` resolves (with the statement) the first time it fires; `count` says how often it has. */
  cutWhen(rule: CutRule): { fired: Promise<string>; remove(): void; readonly count: number }
  close(): Promise<void>
}

interface Pair {
  client: net.Socket
  server: net.Socket
}

const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104

/** The SQL text of the complete frontend messages in `buf` (consumed from it). */
class FrontendParser {
  private buf: Buffer = Buffer.alloc(0)
  private started = false

  push(chunk: Buffer): string[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk
    const out: string[] = []
    for (;;) {
      if (!this.started) {
        if (this.buf.length < 8) break
        const len = this.buf.readInt32BE(0)
        if (this.buf.length < len) break
        const code = this.buf.readInt32BE(4)
        this.buf = this.buf.subarray(len)
        if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) this.started = true
        continue
      }
      if (this.buf.length < 5) break
      const type = String.fromCharCode(this.buf[0]!)
      const len = this.buf.readInt32BE(1)
      if (this.buf.length < 1 + len) break
      const body = this.buf.subarray(5, 1 + len)
      this.buf = this.buf.subarray(1 + len)
      if (type === 'Q') out.push(body.toString('utf8', 0, Math.max(0, body.indexOf(0))))
      else if (type === 'P') {
        const nameEnd = body.indexOf(0)
        const queryEnd = body.indexOf(0, nameEnd + 1)
        out.push(body.toString('utf8', nameEnd + 1, queryEnd))
      }
    }
    return out
  }
}

export async function startDbProxy(target: { host: string; port: number }): Promise<DbProxy> {
  const pairs = new Set<Pair>()
  const statements: string[] = []
  const rules: { rule: CutRule; left: number; skip: number; fire: (sql: string) => void; fired: number }[] = []
  let server: net.Server | undefined
  let port = 0
  let stalled = false
  const hung = new Set<net.Socket>()

  function cutAll(): void {
    for (const p of pairs) {
      p.client.destroy()
      p.server.destroy()
    }
    pairs.clear()
  }

  function onConnection(client: net.Socket): void {
    if (stalled) {
      // Accepted, never answered: the client waits for PostgreSQL's greeting.
      hung.add(client)
      client.on('error', () => {})
      client.on('close', () => hung.delete(client))
      return
    }
    const upstream = net.connect(target.port, target.host)
    const pair: Pair = { client, server: upstream }
    pairs.add(pair)
    const parser = new FrontendParser()
    /** Set by an ackLost rule: the next bytes from the server are dropped and everything is cut. */
    let swallow: (() => void) | undefined
    const drop = () => {
      pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on('error', drop)
    upstream.on('error', drop)
    client.on('close', drop)
    upstream.on('close', drop)
    upstream.on('data', (chunk: Buffer) => {
      if (swallow) {
        const then = swallow
        swallow = undefined
        then()
        return
      }
      if (!client.destroyed) client.write(chunk)
    })
    client.on('data', (chunk: Buffer) => {
      const sqls = parser.push(chunk)
      statements.push(...sqls)
      for (const sql of sqls) {
        const hit = rules.find((r) => r.left > 0 && r.rule.sql.test(sql))
        if (!hit) continue
        if (hit.skip > 0) {
          hit.skip--
          continue
        }
        hit.left--
        hit.fired++
        const fire = () => {
          cutAll()
          if (hit.rule.refuse) void refuse()
          hit.fire(sql)
        }
        if (hit.rule.ackLost) {
          swallow = fire
          break
        }
        fire()
        return
      }
      if (!upstream.destroyed) upstream.write(chunk)
    })
  }

  async function listen(): Promise<void> {
    const s = net.createServer(onConnection)
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject)
      s.listen(port, '127.0.0.1', () => {
        s.off('error', reject)
        resolve()
      })
    })
    port = (s.address() as net.AddressInfo).port
    server = s
  }

  async function refuse(): Promise<void> {
    const s = server
    server = undefined
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()))
  }

  await listen()

  return {
    get port() {
      return port
    },
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    get connections() {
      return pairs.size
    },
    statements,
    clearLog: () => {
      statements.length = 0
    },
    cut: cutAll,
    refuse: async () => {
      const closing = refuse()
      cutAll()
      await closing
    },
    stall: () => {
      stalled = true
      cutAll()
    },
    restore: async () => {
      stalled = false
      for (const c of hung) c.destroy()
      if (!server) await listen()
    },
    cutWhen(rule) {
      let fire!: (sql: string) => void
      const fired = new Promise<string>((resolve) => (fire = resolve))
      const entry = { rule, left: rule.times ?? 1, skip: rule.skip ?? 0, fire, fired: 0 }
      rules.push(entry)
      return {
        fired,
        remove: () => {
          entry.left = 0
        },
        get count() {
          return entry.fired
        },
      }
    },
    close: async () => {
      stalled = false
      for (const c of hung) c.destroy()
      for (const r of rules) r.left = 0
      const closing = refuse()
      cutAll()
      await closing
    },
  }
}
