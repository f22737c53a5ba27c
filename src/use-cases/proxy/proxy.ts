/**
 * The provider-compatible proxy (issue 23): a request to /v1/chat/completions,
 * /v1/responses or /v1/messages goes on to the provider, compacted on the way when it is
 * past its model's threshold. Below the threshold the caller's bytes go on unchanged.
 *
 * Cache-aware: a session's compaction is kept as a recipe (reusable-prefix.ts,
 * checkpoints/prefixes.ts); a later request that extends the same history gets the same
 * compacted prefix, byte for byte, with its new messages after it, until that crosses
 * the threshold again. A compaction then goes to PROXY_COMPACT_TO of the threshold, so
 * one cache break buys many cached turns.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { Readable } from 'node:stream'
import { messageTexts, prefixRecipe, replayPrefix, type PrefixPart } from '../../engine/compaction/reusable-prefix.ts'
import { redactValue } from '../../engine/archive/redact.ts'
import type { JsonObject } from '../../engine/messages/adapter.ts'
import type { MessageFormat, RequestConversation, RequestWire } from '../../engine/messages/index.ts'
import { readPrefix, writePrefix, type StoredPrefix } from '../../checkpoints/prefixes.ts'
import { ApiError } from '../../errors.ts'
import type { CompactRequest, CompactResponse } from '../compact/compute.ts'
import { UpstreamUnreachable, type UpstreamRequest, type UpstreamResponse } from '../../providers/upstream.ts'
import type { Caller, UseCaseDeps } from '../deps.ts'
import type { EstimateInput, EstimateResult } from '../estimate/count.ts'
import type { SearchResult } from '../archive/archive.ts'
import type { ProxyOutcome } from './metrics.ts'
import { hitsText, recallLoop } from './recall.ts'
import { compactAfterHead } from './chain.ts'
import { derivedSession, forwardedHeaders, givenCompactNow, givenFocus, givenNotMidTurn, givenRecall, givenSession, givenThreshold, givenTrigger } from './headers.ts'
import type { Breaker } from '../compact/breaker.ts'
import type { BreakerStatus } from '../../engine/compaction/breaker.ts'
import { parseConversation } from '../../engine/messages/index.ts'
import { getSession as readSession } from '../../sessions/repository.ts'
import { tenantNameOf } from '../../tenancy/api-keys.ts'
import type { Config } from '../../config.ts'
import { midTurn } from '../../engine/conversation/pairing.ts'

export type ProxyDeps = Pick<UseCaseDeps, 'config' | 'db' | 'upstream' | 'metrics'> & {
  /** The archive's search (the recall loop's answers). */
  searchArchive: (tenantId: string, sessionId: string, input: { q: string; limit: number }) => Promise<SearchResult>
  estimate: (caller: Caller, input: EstimateInput) => Promise<EstimateResult>
  compact: (caller: Caller, input: CompactRequest, how?: { automatic?: boolean }) => Promise<CompactResponse>
  /** The sessions' circuit breaker: automatic compactions ask it first and are recorded. */
  breaker?: Pick<Breaker, 'refusal' | 'recordAutomatic'>
}

export interface ProxyCall {
  wire: RequestWire
  format: MessageFormat
  /** The body as it came: what goes on when nothing is compacted. */
  rawBody: Buffer
  body: JsonObject
  headers: IncomingHttpHeaders
}

export interface ProxyReply {
  status: number
  headers: Record<string, string | string[]>
  body: Readable
}

/** What compactd did, as response headers (x-compactd-*). */
interface Decision {
  outcome: ProxyOutcome
  body: Buffer | string
  /** What `body` holds, parsed (the recall loop builds on it). */
  json: JsonObject
  tokensBefore: number
  tokensAfter: number
  sessionId?: string
  checkpointNum?: number
  /** Why an automatic compaction the request was due for did not happen (trigger, mid-turn, the breaker). */
  held?: string
  /** The open breaker that held it. */
  breaker?: BreakerStatus
}

export function makeProxy(deps: ProxyDeps) {
  const { config, db } = deps

  type TenantSettings = Config['PROXY_TENANTS'][string]
  // PROXY_TENANTS is keyed by name; a tenant's name never changes, so each id is looked up
  // once: the lookup's promise is kept, so decide() and proxyRequest() asking at once share it.
  const tenantSettingsById = new Map<string, Promise<TenantSettings | undefined>>()
  function tenantSettings(tenantId: string): Promise<TenantSettings | undefined> {
    if (Object.keys(config.PROXY_TENANTS).length === 0) return Promise.resolve(undefined)
    let found = tenantSettingsById.get(tenantId)
    if (found === undefined) {
      found = tenantNameOf(db, tenantId).then((name) => (name !== undefined ? config.PROXY_TENANTS[name] : undefined))
      // A failed lookup is not kept: the next request asks again.
      found.catch(() => tenantSettingsById.delete(tenantId))
      tenantSettingsById.set(tenantId, found)
    }
    return found
  }

  function upstreamBase(upstream: 'openai' | 'anthropic', tenant: TenantSettings | undefined): string {
    const base = upstream === 'openai' ? (tenant?.upstreamOpenaiUrl ?? config.UPSTREAM_OPENAI_URL) : (tenant?.upstreamAnthropicUrl ?? config.UPSTREAM_ANTHROPIC_URL)
    return base.replace(/\/+$/, '')
  }

  /** An unreachable provider is a 502 in the endpoint's shape; its own answers, errors included, pass through. */
  async function send(req: UpstreamRequest): Promise<UpstreamResponse> {
    try {
      return await deps.upstream.send(req)
    } catch (err) {
      if (err instanceof UpstreamUnreachable) throw new ApiError(502, 'upstream_unreachable', err.message)
      throw err
    }
  }

  async function decide(caller: Caller, call: ProxyCall): Promise<Decision> {
    const pass = (tokens: number): Decision => ({ outcome: 'passthrough', body: call.rawBody, json: call.body, tokensBefore: tokens, tokensAfter: tokens })
    const conversation = call.wire.conversationOf(call.body)
    const model = typeof call.body.model === 'string' ? call.body.model : undefined
    // Nothing compactd can read or change: the provider answers (and words its own errors).
    if ('none' in conversation || model === undefined || conversation.messages.length === 0) return pass(0)
    const focus = givenFocus(call.headers)
    const sessionGiven = givenSession(call.headers)
    const [trigger, tenant] = await Promise.all([triggerOf(caller.tenantId, call.headers, sessionGiven), tenantSettings(caller.tenantId)])
    if (trigger.mode === 'off') return pass(0)
    const compactNow = givenCompactNow(call.headers)
    const counted = await deps.estimate(caller, {
      messages: conversation.messages,
      format: call.format,
      model,
      ...(conversation.system !== undefined ? { system: conversation.system } : {}),
      ...(Array.isArray(call.body.tools) ? { tools: call.body.tools } : {}),
    } as EstimateInput)
    // The request's or the session's threshold, else the tenant's (PROXY_TENANTS), else the model's.
    const given = trigger.threshold ?? tenant?.threshold
    const threshold = given === undefined ? undefined : given >= 1 ? Math.floor(given) : Math.floor(given * counted.contextLimit)
    const limit = threshold ?? counted.threshold
    if (counted.totalTokens < limit && !compactNow) return pass(counted.totalTokens)

    const sessionId = sessionGiven ?? derivedSession(caller.tenantId, conversation.system, conversation.messages)
    const texts = messageTexts(conversation.messages)
    const stored = await readPrefix(db, caller.tenantId, sessionId)
    const replayed = stored ? replayPrefix(stored, conversation.messages, texts, conversation.system) : undefined
    if (stored) {
      if (replayed) {
        const candidate: RequestConversation = { messages: replayed, ...withSystem(stored.system ?? conversation.system) }
        const recount = await deps.estimate(caller, { messages: candidate.messages, format: call.format, model, ...withSystem(candidate.system), ...(Array.isArray(call.body.tools) ? { tools: call.body.tools } : {}) } as EstimateInput)
        if (recount.totalTokens < limit && !compactNow) {
          const json = call.wire.withConversation(call.body, candidate)
          return { outcome: 'reused', body: JSON.stringify(json), json, tokensBefore: counted.totalTokens, tokensAfter: recount.totalTokens, sessionId, checkpointNum: stored.checkpointNum }
        }
      }
    }

    // An automatic compaction may be held: by the trigger, mid-turn, or an open breaker.
    if (!compactNow) {
      const held = (why: string, breaker?: BreakerStatus): Decision => ({ ...pass(counted.totalTokens), sessionId, held: why, ...(breaker ? { breaker } : {}) })
      if (trigger.mode === 'manual') return held('trigger mode manual: only x-compactd-compact: now compacts')
      if (trigger.notMidTurn && midTurn(parseConversation(conversation.messages, { format: call.format, system: conversation.system }).messages)) return held('notMidTurn: the last assistant message has tool calls without results')
      const open = await deps.breaker?.refusal(caller.tenantId, sessionId, 'proxy')
      if (open) return held(`the compaction breaker is open: ${open.reason}`, open)
    }

    // Compact to a share of the threshold, so the next turns fit under this same prefix:
    // after the stored prefix's head when the chain allows (chain.ts), else the whole
    // history (the archive gets every message once).
    const targetTokens = Math.max(1, Math.floor(limit * config.PROXY_COMPACT_TO) - counted.toolsTokens)
    const chained =
      stored && replayed && !compactNow
        ? await compactAfterHead({ estimate: deps.estimate, compact: deps.compact, maxSummaries: config.PROXY_SUMMARY_CHAIN }, caller, { format: call.format, model, ...withSystem(conversation.system), replayed, stored, targetTokens, sessionId, ...(focus ? { focus } : {}) })
        : undefined
    const compacted = chained?.compacted ?? (await compactOrRefuse(caller, { messages: conversation.messages, format: call.format, model, ...withSystem(conversation.system), targetTokens, sessionId, ...(focus ? { focus } : {}) } as CompactRequest, limit, !compactNow))
    if (!compactNow && compacted.compacted) {
      await deps.breaker?.recordAutomatic(caller.tenantId, sessionId, { messages: conversation.messages.length, freedTokens: Math.max(0, compacted.event.tokensBefore - compacted.event.tokensAfter), windowTokens: counted.contextLimit })
    }
    const recipe = prefixRecipe(texts, chained?.messages ?? compacted.messages, conversation.system)
    // What compactd wrote (the summary, masked results) holds no secret in clear: not in
    // the database, and, so that every later request sends the same bytes, not upstream.
    const parts: PrefixPart[] = recipe.parts.map((p) => ('created' in p ? { created: redactValue(p.created).value } : p))
    // A chained round leaves the system prompt as it is (chain.ts refuses one that would not).
    const systemChanged = !chained && JSON.stringify(compacted.system ?? null) !== JSON.stringify(conversation.system ?? null)
    const system = systemChanged ? redactValue(compacted.system).value : undefined
    const checkpointNum = compacted.checkpoint?.checkpointNum ?? 0
    const prefix: StoredPrefix = { ...recipe, parts, ...(system !== undefined ? { system } : {}), checkpointNum }
    await writePrefix(db, caller.tenantId, sessionId, prefix)
    const messages = replayPrefix(prefix, conversation.messages, texts, conversation.system)!
    const json = call.wire.withConversation(call.body, { messages, ...withSystem(system ?? conversation.system) })
    return { outcome: 'compacted', body: JSON.stringify(json), json, tokensBefore: counted.totalTokens, tokensAfter: compacted.event.tokensAfter + (chained?.headTokens ?? 0) + counted.toolsTokens, sessionId, checkpointNum }
  }

  /** The trigger: the headers', else the named session's stored one, else auto at the model's threshold. */
  async function triggerOf(tenantId: string, headers: IncomingHttpHeaders, sessionId: string | undefined): Promise<{ mode: 'off' | 'manual' | 'auto'; threshold?: number; notMidTurn?: boolean }> {
    const mode = givenTrigger(headers)
    const threshold = givenThreshold(headers)
    const notMidTurn = givenNotMidTurn(headers)
    const stored = sessionId ? (await readSession(db, tenantId, sessionId))?.settings.trigger : undefined
    return {
      mode: mode ?? stored?.mode ?? 'auto',
      ...((threshold ?? stored?.threshold) !== undefined ? { threshold: threshold ?? stored?.threshold } : {}),
      ...((notMidTurn ?? stored?.notMidTurn) !== undefined ? { notMidTurn: notMidTurn ?? stored?.notMidTurn } : {}),
    }
  }

  /** The session of a request that was not compacted (the recall loop searches its archive). */
  function sessionOf(tenantId: string, call: ProxyCall): string {
    const conversation = call.wire.conversationOf(call.body)
    return givenSession(call.headers) ?? derivedSession(tenantId, 'none' in conversation ? undefined : conversation.system, 'none' in conversation ? [] : conversation.messages)
  }

  /** The archive's answer to one search_context call; a session with nothing archived yet says so. */
  async function recall(tenantId: string, sessionId: string, query: string): Promise<string> {
    if (query.trim() === '') return 'search_context needs a query: keywords or a question.'
    try {
      return hitsText(query, await deps.searchArchive(tenantId, sessionId, { q: query.slice(0, 2_000), limit: 5 }))
    } catch (err) {
      if ((err as { statusCode?: unknown }).statusCode === 404) return hitsText(query, undefined)
      throw err
    }
  }

  /** A compaction that cannot fit is the provider's own context-length error, in its shape. */
  async function compactOrRefuse(caller: Caller, input: CompactRequest, limit: number, automatic: boolean): Promise<CompactResponse> {
    try {
      return await deps.compact(caller, input, { automatic })
    } catch (err) {
      const code = (err as { code?: unknown }).code
      if (code === 'budget_unreachable') {
        throw new ApiError(400, 'context_length_exceeded', `compactd could not compact this conversation under ${limit} tokens (${(err as Error).message}); start a new conversation or raise x-compactd-threshold`)
      }
      throw err
    }
  }

  async function proxyRequest(caller: Caller & { signal?: AbortSignal }, call: ProxyCall): Promise<ProxyReply> {
    const [decision, tenant] = await Promise.all([decide(caller, call), tenantSettings(caller.tenantId)])
    const endpoint = call.wire.path
    deps.metrics?.onProxied?.(endpoint, decision.outcome, Math.max(0, decision.tokensBefore - decision.tokensAfter))
    const forward = (body: string | Buffer, whole = false) =>
      send({ url: upstreamBase(call.wire.upstream, tenant) + call.wire.upstreamPath, method: 'POST', headers: { ...forwardedHeaders(call.headers), 'content-type': 'application/json', ...(whole ? { 'accept-encoding': 'identity' } : {}) }, body, signal: caller.signal })
    let res: UpstreamResponse
    let rounds: number | undefined
    if (givenRecall(call.headers)) {
      const sessionId = decision.sessionId ?? sessionOf(caller.tenantId, call)
      ;({ res, rounds } = await recallLoop(call.wire, decision.json, { send: forward, search: (q) => recall(caller.tenantId, sessionId, q), maxRounds: config.PROXY_RECALL_MAX_ROUNDS }))
    } else res = await forward(decision.body)
    const headers: Record<string, string | string[]> = { ...res.headers, 'x-compactd-compacted': String(decision.outcome !== 'passthrough') }
    if (rounds !== undefined) headers['x-compactd-recall-rounds'] = String(rounds)
    if (decision.tokensBefore > 0) {
      headers['x-compactd-tokens-before'] = String(decision.tokensBefore)
      headers['x-compactd-tokens-after'] = String(decision.tokensAfter)
    }
    if (decision.held) headers['x-compactd-held'] = decision.held.replace(/[^\x20-\x7e]/g, '?')
    if (decision.breaker) {
      headers['x-compactd-breaker'] = 'open'
      headers['retry-after'] = String(decision.breaker.retryAfterSeconds ?? 1)
    }
    if (decision.outcome !== 'passthrough') {
      headers['x-compactd-prefix'] = decision.outcome === 'reused' ? 'reused' : 'new'
      if (decision.sessionId) headers['x-compactd-session'] = decision.sessionId
      if (decision.checkpointNum) headers['x-compactd-checkpoint'] = String(decision.checkpointNum)
    }
    return { status: res.status, headers, body: res.body }
  }

  /** POST /v1/messages/count_tokens, answered by compactd's own counter in Anthropic's shape. */
  async function countTokens(caller: Caller, body: JsonObject): Promise<{ input_tokens: number }> {
    if (typeof body.model !== 'string') throw new ApiError(400, 'validation_error', 'model: required (a string)', [{ path: 'body.model', message: 'required (a string)' }])
    if (!Array.isArray(body.messages)) throw new ApiError(400, 'validation_error', 'messages: required (an array)', [{ path: 'body.messages', message: 'required (an array)' }])
    const counted = await deps.estimate(caller, { messages: body.messages, format: 'anthropic', model: body.model, ...withSystem(body.system), ...(Array.isArray(body.tools) ? { tools: body.tools } : {}) } as EstimateInput)
    return { input_tokens: counted.totalTokens }
  }

  /** GET /v1/models, passed through: to Anthropic when the caller speaks its headers, else to OpenAI. */
  async function listModels(caller: Caller & { signal?: AbortSignal }, headers: IncomingHttpHeaders, search: string): Promise<ProxyReply> {
    const anthropic = headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined
    const tenant = await tenantSettings(caller.tenantId)
    const base = anthropic ? `${upstreamBase('anthropic', tenant)}/v1/models` : `${upstreamBase('openai', tenant)}/models`
    const res = await send({ url: base + search, method: 'GET', headers: forwardedHeaders(headers), signal: caller.signal })
    return { status: res.status, headers: res.headers, body: res.body }
  }

  return { request: proxyRequest, countTokens, listModels }
}

function withSystem(system: unknown): { system?: unknown } {
  return system === undefined ? {} : { system }
}
