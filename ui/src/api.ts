/** The API as the dashboard calls it: same origin, the key (if any) from sessionStorage as a Bearer header. */
const KEY = 'compactd.apiKey'

export const apiKey = {
  get: (): string | null => sessionStorage.getItem(KEY),
  set: (k: string) => sessionStorage.setItem(KEY, k),
  clear: () => sessionStorage.removeItem(KEY),
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The whole error body: some errors carry more than their message (a 409's `currentVersion`). */
    readonly body: Record<string, unknown> = {},
  ) {
    super(message)
  }
}

/** Listeners told when the key is refused (the app asks for it again). */
export const unauthorized = new Set<() => void>()

export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = {}
  const key = apiKey.get()
  if (key) headers.authorization = `Bearer ${key}`
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(path, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) })
  const text = await res.text()
  let json: unknown = null
  try {
    json = text ? JSON.parse(text) : null
  } catch {
    json = null
  }
  if (!res.ok) {
    const body = (json && typeof json === 'object' ? json : {}) as Record<string, unknown>
    if (res.status === 401) for (const f of unauthorized) f()
    throw new ApiError(res.status, typeof body.error === 'string' ? body.error : 'error', typeof body.message === 'string' ? body.message : `HTTP ${res.status}`, body)
  }
  return json as T
}

/** Every page of a cursor-paged route, up to `max` items. */
export async function allPages<T>(path: string, limit: number, max = 10_000): Promise<T[]> {
  const out: T[] = []
  let cursor: string | null = null
  do {
    const sep = path.includes('?') ? '&' : '?'
    const page: { items: T[]; nextCursor: string | null } = await api(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
    out.push(...page.items)
    cursor = page.nextCursor
  } while (cursor && out.length < max)
  return out
}

export const enc = encodeURIComponent

export function fmtInt(n: number | null | undefined): string {
  return n === null || n === undefined ? '–' : n.toLocaleString('en-US')
}

export function fmtTime(iso: string | null | undefined): string {
  if (!iso) return '–'
  const d = new Date(iso)
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 19)}Z`
}
