/**
 * The proxy's way to the providers (issue 23): one request, its body sent as given and
 * the response's body handed back as a stream, never read whole. One keep-alive undici
 * Agent per app, closed with it. The caller's credentials travel in the headers it
 * passes; nothing here logs or keeps them.
 */
import type { Readable } from 'node:stream'
import { Agent, request } from 'undici'

export interface UpstreamRequest {
  url: string
  method: 'GET' | 'POST'
  headers: Record<string, string>
  body?: string | Buffer
  /** Aborts the request (the client went away). */
  signal?: AbortSignal
}

export interface UpstreamResponse {
  status: number
  headers: Record<string, string | string[]>
  body: Readable
}

export interface UpstreamClient {
  send(req: UpstreamRequest): Promise<UpstreamResponse>
  close(): Promise<void>
}

/** Error of a provider that could not be reached (refused, reset, timed out before a response). */
export class UpstreamUnreachable extends Error {}

/** Headers the proxy never passes on: hop-by-hop ones (RFC 9110 §7.6.1) and the length, which undici sets. */
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', 'content-length'])

export function makeUpstreamClient(opts: { connectTimeoutMs?: number; headersTimeoutMs?: number } = {}): UpstreamClient {
  // Long generations stream for minutes: no body timeout while chunks keep coming.
  const agent = new Agent({ connect: { timeout: opts.connectTimeoutMs ?? 10_000 }, headersTimeout: opts.headersTimeoutMs ?? 600_000, bodyTimeout: 600_000, keepAliveTimeout: 30_000 })
  return {
    async send(req) {
      try {
        const res = await request(req.url, { method: req.method, headers: req.headers, body: req.body ?? null, signal: req.signal, dispatcher: agent })
        const headers: Record<string, string | string[]> = {}
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value
        return { status: res.statusCode, headers, body: res.body }
      } catch (err) {
        if (req.signal?.aborted) throw err
        const code = (err as { code?: string }).code ?? (err as Error).name
        throw new UpstreamUnreachable(`the provider at ${new URL(req.url).origin} could not be reached (${code})`)
      }
    },
    // By now the server has stopped taking requests; a stream still open is cut, not waited for.
    close: () => agent.destroy(),
  }
}
