/**
 * The soak's workload (issue 10), shared with the cluster bench (issue 25): sessions that
 * agents append to, read the summary of, fetch the context of and compact with, and the
 * driver's model of each, against which the service's answers and its database are
 * checked at the end.
 *
 * - appends: agent exchanges (a user request, an assistant message with tool calls, their
 *   results, an edit call and its result, a closing answer), sent whole or turn by turn;
 *   one append in flight per session at most, each with an Idempotency-Key and retried on
 *   a network error, a 429 or a 5xx (another instance may answer the retry);
 * - GET /sessions/:id/summary of sessions that hold messages;
 * - GET /sessions/:id/context?budget=… of sessions that hold messages;
 * - POST /compact of an 80-200 message agent conversation with the session's id (a
 *   checkpoint is stored per compaction).
 * A quarter of the sessions use a 10-message window and batchSize 1; the rest the defaults.
 */
import { createHash } from 'node:crypto'
import { exchange, type Message } from '../helpers/session-conversations.ts'
import { syntheticConversation } from './conversation.ts'
import { sleep } from './service.ts'

export type Op = 'append' | 'summary' | 'context' | 'compact'
export const OPS: Op[] = ['append', 'summary', 'context', 'compact']
const APPEND_ATTEMPTS = 8

export function parseMix(s: string): Record<Op, number> {
  const mix: Record<Op, number> = { append: 0, summary: 0, context: 0, compact: 0 }
  for (const part of s.split(',')) {
    const [k, v] = part.split(':')
    if (!OPS.includes(k as Op) || !(Number(v) >= 0)) throw new Error(`mix: bad entry ${JSON.stringify(part)} (expected e.g. append:5,summary:4,compact:1)`)
    mix[k as Op] = Number(v)
  }
  return mix
}

export const sha1 = (s: string) => createHash('sha1').update(s).digest('hex')

/** Deterministic pseudo-random numbers (the run is repeatable up to timing). */
export function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

export interface SessionState {
  id: string
  busyAppend: boolean
  busyCompact: boolean
  /** Exchange being sent, and which of its chunks is next. */
  exchange: number
  chunks: Message[][]
  chunk: number
  appendNo: number
  /** sha1 of each message acknowledged (2xx), in order: index = seq - 1. */
  acked: string[]
  compactsAcked: number
  /** Compactions whose answer was lost (a killed instance): each may or may not have stored a checkpoint. */
  compactsUnknown: number
  /** An append whose outcome the driver could not learn. */
  unknown: string[]
  /** Responses that contradicted the driver's model. */
  wrong: string[]
}

/** An exchange, sent whole or turn by turn (tool calls always with their results). */
function chunksOf(session: number, k: number): Message[][] {
  const messages = exchange(k, { parallel: k % 3 === 0 ? 2 : 1, padding: 4 + ((k * 7 + session) % 24), fail: k % 2 === 0 })
  const calls = 1 + (k % 3 === 0 ? 2 : 1) // assistant + its results
  switch ((session + k) % 3) {
    case 0:
      return [messages]
    case 1:
      return [messages.slice(0, 1), messages.slice(1, 1 + calls), messages.slice(1 + calls)]
    default:
      return [messages.slice(0, 1 + calls), messages.slice(1 + calls)]
  }
}

export function newSessions(prefix: string, count: number): SessionState[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}-${i}`,
    busyAppend: false,
    busyCompact: false,
    exchange: 0,
    chunks: chunksOf(i, 0),
    chunk: 0,
    appendNo: 0,
    acked: [],
    compactsAcked: 0,
    compactsUnknown: 0,
    unknown: [],
    wrong: [],
  }))
}

export interface OpStats {
  latencies: number[]
  ok: number
  s429: number
  s5xx: number
  s4xx: number
  network: number
}
export const emptyOp = (): OpStats => ({ latencies: [], ok: 0, s429: 0, s5xx: 0, s4xx: 0, network: 0 })
export const emptyOps = (): Record<Op, OpStats> => ({ append: emptyOp(), summary: emptyOp(), context: emptyOp(), compact: emptyOp() })

export function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN
  const s = Float64Array.from(xs).sort()
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!
}
export const p99 = (xs: number[]) => quantile(xs, 0.99)

export interface Reply {
  status: number
  headers: Record<string, unknown>
  text: string
}
export type Request = (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, headers?: Record<string, string>) => Promise<Reply>

/** The first few non-2xx answers per operation and status, printed at the end. */
export type ErrorSamples = Map<string, { count: number; first: string[] }>

/**
 * The workload over `sessions`: `runOne()` runs one operation of `mix`, recording it into
 * `stats()` (swap the object to start a new window). `lostIsUnknown`: a compaction whose
 * answer was lost counts as unknown rather than wrong (a run that kills an instance).
 */
export function workload(opts: { request: Request; sessions: SessionState[]; mix: Record<Op, number>; seed: number; stats: () => Record<Op, OpStats>; errors: ErrorSamples; lostIsUnknown?: boolean }) {
  const { request, sessions, mix } = opts
  const random = rng(opts.seed)
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!
  const mixTotal = OPS.reduce((n, op) => n + mix[op], 0)
  const chooseOp = (): Op => {
    let x = random() * mixTotal
    for (const op of OPS) if ((x -= mix[op]) < 0) return op
    return 'summary'
  }
  // /compact bodies: agent conversations of 80, 140 and 200 messages.
  const compactBodies = [80, 140, 200].map((n) => ({ model: 'gpt-4o', targetTokens: 3_000, keepRecent: 6, messages: syntheticConversation(n) }))

  const timed = async (op: Op, fn: () => Promise<Reply>): Promise<Reply> => {
    const s = opts.stats()[op]
    const t0 = performance.now()
    let r: Reply
    try {
      r = await fn()
    } catch (err) {
      r = { status: 0, headers: {}, text: String(err) }
    }
    s.latencies.push(performance.now() - t0)
    if (r.status === 0) s.network++
    else if (r.status >= 200 && r.status < 300) s.ok++
    else if (r.status === 429) s.s429++
    else if (r.status >= 500) s.s5xx++
    else s.s4xx++
    if (r.status < 200 || r.status >= 300) {
      const key = `${op} ${r.status || 'network'}`
      const e = opts.errors.get(key) ?? { count: 0, first: [] }
      e.count++
      if (e.first.length < 3) e.first.push(r.text.slice(0, 300))
      opts.errors.set(key, e)
    }
    return r
  }

  const append = async (s: SessionState) => {
    s.busyAppend = true
    try {
      const messages = s.chunks[s.chunk]!
      const body = JSON.stringify({ messages })
      const key = `${s.id}-append-${s.appendNo}`
      for (let attempt = 0; ; attempt++) {
        const r = await timed('append', () => request('POST', `/sessions/${s.id}/messages`, body, { 'idempotency-key': key }))
        if (r.status === 200) {
          const res = JSON.parse(r.text) as { firstSeq: number; lastSeq: number; messageCount: number }
          const expected = s.acked.length + 1
          if (res.firstSeq !== expected || res.lastSeq !== expected + messages.length - 1 || res.messageCount !== res.lastSeq) {
            s.wrong.push(`append ${key}: seqs ${res.firstSeq}..${res.lastSeq} (count ${res.messageCount}), expected ${expected}..${expected + messages.length - 1}`)
          }
          for (const m of messages) s.acked.push(sha1(JSON.stringify(m)))
          break
        }
        if (r.status !== 0 && r.status !== 429 && r.status < 500) {
          s.wrong.push(`append ${key}: ${r.status} ${r.text.slice(0, 300)}`)
          s.unknown.push(key) // a 4xx appends nothing, but the driver's model is off from here
          break
        }
        if (attempt + 1 >= APPEND_ATTEMPTS) {
          s.unknown.push(`${key} (${APPEND_ATTEMPTS} attempts, last ${r.status || r.text.slice(0, 200)})`)
          break
        }
        await sleep(Math.min(5_000, 100 * 2 ** attempt))
      }
      s.appendNo++
      if (++s.chunk === s.chunks.length) {
        s.exchange++
        s.chunks = chunksOf(Number(s.id.slice(s.id.lastIndexOf('-') + 1)), s.exchange)
        s.chunk = 0
      }
    } finally {
      s.busyAppend = false
    }
  }

  const readSummary = async (s: SessionState) => {
    const r = await timed('summary', () => request('GET', `/sessions/${s.id}/summary`))
    if (r.status === 200) {
      const v = JSON.parse(r.text) as { tokens: number; budget: number }
      if (v.tokens > v.budget) s.wrong.push(`summary over budget: ${v.tokens} > ${v.budget}`)
    }
  }

  const readContext = async (s: SessionState) => {
    const r = await timed('context', () => request('GET', `/sessions/${s.id}/context?budget=2000`))
    if (r.status === 200) {
      const v = JSON.parse(r.text) as { tokens: number; reason?: string }
      if (v.tokens > 2000 && !v.reason) s.wrong.push(`context over its budget: ${v.tokens} > 2000`)
    }
  }

  const compact = async (s: SessionState) => {
    s.busyCompact = true
    try {
      const body = { ...pick(compactBodies), sessionId: s.id }
      const r = await timed('compact', () => request('POST', '/compact', body))
      if (r.status === 200) {
        const res = JSON.parse(r.text) as { compacted: boolean; checkpoint?: { checkpointNum: number } }
        if (res.compacted) {
          s.compactsAcked++
          const num = res.checkpoint?.checkpointNum ?? -1
          // A lost answer may have stored a checkpoint: the numbers then run ahead by up to that many.
          if (num < s.compactsAcked || num > s.compactsAcked + s.compactsUnknown) s.wrong.push(`compact: checkpoint ${num}, expected ${s.compactsAcked}${s.compactsUnknown ? `..${s.compactsAcked + s.compactsUnknown}` : ''}`)
        }
      } else if (r.status === 0) {
        if (opts.lostIsUnknown) s.compactsUnknown++
        else s.unknown.push(`compact (network: ${r.text.slice(0, 200)})`)
      }
    } finally {
      s.busyCompact = false
    }
  }

  /** One operation of the mix, on a session free for it (appends: one in flight per session). */
  const runOne = async (): Promise<void> => {
    const op = chooseOp()
    for (let tries = 0; tries < 20; tries++) {
      const s = pick(sessions)
      if (op === 'append' && !s.busyAppend) return append(s)
      if (op === 'summary' && s.acked.length > 0) return readSummary(s)
      if (op === 'context' && s.acked.length > 0) return readContext(s)
      if (op === 'compact' && !s.busyCompact) return compact(s)
    }
    // Early on few sessions hold messages: append instead.
    const free = sessions.find((s) => !s.busyAppend)
    if (free) return append(free)
  }

  /** A quarter of the sessions get a 10-message window and batchSize 1. */
  const configure = async () => {
    for (let i = 0; i < sessions.length; i += 4) {
      const r = await request('PUT', `/sessions/${sessions[i]!.id}`, { format: 'openai', windowMessages: 10, batchSize: 1 })
      if (r.status !== 201) throw new Error(`PUT session: ${r.status} ${r.text}`)
    }
  }
  return { runOne, configure }
}
