/** The CLI's HTTP client: JSON in and out, the API key from COMPACTD_API_KEY, every failure one line. */
import { CliError } from './args.ts'

export const DEFAULT_URL = 'http://127.0.0.1:3000'

export interface Server {
  url: string
  apiKey?: string
  /** What to tell the user when the service cannot be reached (default: start it, or run in-process). */
  unreachableHint?: string
}

export interface ServerReply<T> {
  status: number
  body: T
}

/** The server to talk to: --url, else COMPACTD_URL; undefined means in-process. */
export function serverFrom(url: string | undefined, env: NodeJS.ProcessEnv, fallback?: string): Server | undefined {
  const given = url ?? (env.COMPACTD_URL || undefined) ?? fallback
  if (given === undefined) return undefined
  let parsed: URL
  try {
    parsed = new URL(given)
  } catch {
    throw new CliError(`${url !== undefined ? '--url' : 'COMPACTD_URL'}: not a URL: ${JSON.stringify(given)}`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new CliError(`${url !== undefined ? '--url' : 'COMPACTD_URL'}: expected an http(s) URL, got ${JSON.stringify(given)}`)
  return { url: parsed.toString().replace(/\/+$/, ''), ...(env.COMPACTD_API_KEY ? { apiKey: env.COMPACTD_API_KEY } : {}) }
}

/**
 * One request. 2xx → the JSON body; `accept` lists other statuses the caller handles
 * (their body is returned too); anything else is a CliError naming the status, the
 * error code and the server's message.
 */
export async function request<T>(server: Server, method: 'GET' | 'POST', path: string, body?: unknown, accept: number[] = []): Promise<ServerReply<T>> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (server.apiKey) headers.authorization = `Bearer ${server.apiKey}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  let res: Response
  try {
    res = await fetch(`${server.url}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(300_000),
    })
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause
    const why = cause?.code ?? cause?.message ?? (err as Error).message
    throw new CliError(`cannot reach ${server.url} (${why}); ${server.unreachableHint ?? 'start the service (npm start), or run in-process without --url / COMPACTD_URL'}`)
  }
  const text = await res.text()
  let parsed: unknown
  try {
    parsed = text === '' ? undefined : JSON.parse(text)
  } catch {
    throw new CliError(`${method} ${path}: HTTP ${res.status} with a body that is not JSON`)
  }
  if (res.ok || accept.includes(res.status)) return { status: res.status, body: parsed as T }
  const e = (parsed ?? {}) as { error?: string; message?: string }
  const hint = res.status === 401 ? ' (set COMPACTD_API_KEY)' : res.status === 413 ? ' (run in-process: drop --url / COMPACTD_URL)' : ''
  throw new CliError(`server: ${method} ${path}: ${res.status} ${e.error ?? 'error'}: ${oneLine(e.message ?? text)}${hint}`)
}

export function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim()
  return flat.length > 500 ? `${flat.slice(0, 500)}…` : flat
}
