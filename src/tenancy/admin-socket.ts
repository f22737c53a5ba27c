/**
 * The admin socket: how `npm run key:create` reaches a running service that holds the
 * PGlite data directory (PGlite is one process's; a second one would corrupt it).
 *
 * A Unix domain socket inside the data directory, `<PGLITE_DATA_DIR>/.compactd.sock`,
 * mode 0600. Only the user that owns the service's files (and root) can connect, and
 * that user can already read and write the database itself, so the socket grants
 * nothing new. It is not HTTP and is never reachable from the network: creating keys
 * over the API would need a credential that does not exist before the first key.
 *
 * Protocol: one JSON line in, one JSON line out, then the connection closes.
 *   → {"op":"create-key","tenant":"acme","adoptOpenData":true}
 *   ← {"ok":true,"key":"cpd_…","tenantId":"…","keyId":"…","pid":123,"adopted":{…},"note":"…"}
 *   ← {"ok":false,"error":"one line"}
 */
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { z } from 'zod'
import type { AdoptedOpenData } from './open-data.ts'
import { TENANT_NAME } from './provision.ts'

export const ADMIN_SOCKET_NAME = '.compactd.sock'
/** sun_path holds 108 bytes on Linux, 104 on macOS, NUL included. */
const MAX_SOCKET_PATH_BYTES = 103
const MAX_REQUEST_BYTES = 64 * 1024
const IO_TIMEOUT_MS = 30_000

export const adminRequestSchema = z.strictObject({
  op: z.literal('create-key'),
  tenant: z.string().regex(TENANT_NAME),
  adoptOpenData: z.boolean().optional(),
})
export type AdminRequest = z.infer<typeof adminRequestSchema>

export type AdminResponse =
  | { ok: true; key: string; tenantId: string; keyId: string; pid: number; adopted?: AdoptedOpenData; note?: string }
  | { ok: false; error: string }

/** The socket of a data directory, or undefined where there can be none (Windows, too long a path). */
export function adminSocketPath(dataDir: string): string | undefined {
  if (process.platform === 'win32') return undefined
  const p = path.join(path.resolve(dataDir), ADMIN_SOCKET_NAME)
  return Buffer.byteLength(p) <= MAX_SOCKET_PATH_BYTES ? p : undefined
}

export interface AdminSocketServer {
  path: string
  close(): Promise<void>
}

/**
 * Listen on the data directory's socket. Call only while holding the data directory's
 * lock: a socket file left there is a dead process's and is replaced.
 */
export async function listenAdminSocket(dataDir: string, handle: (req: AdminRequest) => Promise<AdminResponse>): Promise<AdminSocketServer | undefined> {
  const socketPath = adminSocketPath(dataDir)
  if (!socketPath) return undefined
  fs.rmSync(socketPath, { force: true })
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    serve(socket, handle)
  })
  // The file is created by bind(), synchronously inside listen(): born 0600, never wider.
  const umask = process.umask(0o177)
  try {
    server.listen(socketPath)
  } finally {
    process.umask(umask)
  }
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', reject)
  })
  fs.chmodSync(socketPath, 0o600)
  return {
    path: socketPath,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const s of sockets) s.destroy()
      await closed
      fs.rmSync(socketPath, { force: true })
    },
  }
}

function serve(socket: net.Socket, handle: (req: AdminRequest) => Promise<AdminResponse>): void {
  let buffered = ''
  let answered = false
  const answer = (res: AdminResponse) => {
    if (answered) return
    answered = true
    socket.end(JSON.stringify(res) + '\n')
  }
  socket.setEncoding('utf8')
  socket.setTimeout(IO_TIMEOUT_MS, () => socket.destroy())
  socket.on('error', () => socket.destroy())
  socket.on('data', (chunk: string) => {
    if (answered) return
    buffered += chunk
    const newline = buffered.indexOf('\n')
    if (newline < 0) {
      if (buffered.length > MAX_REQUEST_BYTES) answer({ ok: false, error: 'admin request too large' })
      return
    }
    let parsed: AdminRequest
    try {
      const result = adminRequestSchema.safeParse(JSON.parse(buffered.slice(0, newline)))
      if (!result.success) {
        const issue = result.error.issues[0]!
        return answer({ ok: false, error: `invalid admin request: ${issue.path.map(String).join('.') || 'request'}: ${issue.message}` })
      }
      parsed = result.data
    } catch {
      return answer({ ok: false, error: 'invalid admin request: not JSON' })
    }
    socket.pause()
    handle(parsed).then(answer, (err: unknown) => answer({ ok: false, error: err instanceof Error ? err.message : String(err) }))
  })
}

/** Why the socket could not be reached: no service answers there. */
export class AdminSocketUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`no admin socket answers: ${reason}`)
    this.name = 'AdminSocketUnavailableError'
  }
}

/** Send one request to the service holding `dataDir`. */
export async function requestAdmin(dataDir: string, req: AdminRequest): Promise<AdminResponse> {
  const socketPath = adminSocketPath(dataDir)
  if (!socketPath) throw new AdminSocketUnavailableError(process.platform === 'win32' ? 'not supported on Windows' : 'the data directory path is too long for a socket')
  return new Promise<AdminResponse>((resolve, reject) => {
    let connected = false
    let received = ''
    const socket = net.createConnection(socketPath, () => {
      connected = true
      socket.write(JSON.stringify(req) + '\n')
    })
    socket.setEncoding('utf8')
    socket.setTimeout(IO_TIMEOUT_MS, () => socket.destroy(new Error(`the service did not answer within ${IO_TIMEOUT_MS / 1000} s`)))
    socket.on('data', (chunk: string) => (received += chunk))
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (!connected) reject(new AdminSocketUnavailableError(err.code ?? err.message))
      else reject(err)
    })
    socket.on('end', () => {
      try {
        resolve(JSON.parse(received) as AdminResponse)
      } catch {
        reject(new Error('the service closed the admin socket without an answer'))
      }
    })
  })
}
