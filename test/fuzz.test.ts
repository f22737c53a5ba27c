/**
 * Property-based fuzzing of every route (issue 10, "Nothing lost, never a 500").
 *
 * Requests are generated from the routes' schemas (valid-ish bodies, parameters and
 * query strings for /estimate, /compact, every /sessions route and the checkpoint
 * routes), then mutated: NUL and lone surrogates in strings, deep nesting, huge and
 * negative numbers, wrong types, dropped fields, duplicate and missing tool-call ids,
 * unknown and repeated query parameters, over-long and malformed ids.
 *
 * Invariants:
 * - never a 5xx;
 * - every error is `{ error, message, issues?, requestId }`, requestId = x-request-id;
 * - what a 2xx stored reads back byte for byte: appended messages from
 *   GET /sessions/:id/context, settings from GET /sessions/:id, a summary from
 *   GET /summary, a checkpoint from GET /checkpoints/:num;
 * - the service stays ready: GET /readyz is 200 after the run.
 *
 * `npm test` runs 3,100 cases on one fixed seed (about 4,500 requests, 15 s on two cores);
 * `npm run fuzz` runs FUZZ_SCALE times more (20 unless set) on a new seed each run
 * (FUZZ_SEED replays one). Default backend: PostgreSQL when it answers, else PGlite.
 */
import type { FastifyInstance, InjectOptions } from 'fastify'
import fc from 'fast-check'
import t from 'tap'
import { buildTestApp } from './helpers/build.ts'
import { CONTINUATION_TEXT, parseConversation } from '../src/engine/messages/index.ts'
import { conversationInFormatArb, findPairingProblems } from './helpers/conversation-arbitraries.ts'

const SCALE = Number(process.env.FUZZ_SCALE ?? 1)
// npm test replays one seed (a failure reproduces); npm run fuzz explores a new one each run
// (fast-check prints it with any counterexample: rerun with FUZZ_SEED=<seed>).
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : SCALE === 1 ? 20261110 : undefined
const runs = (base: number) => Math.max(1, Math.round(base * SCALE))
const params = (base: number): fc.Parameters<unknown> => ({ numRuns: runs(base), ...(SEED !== undefined ? { seed: SEED } : {}), endOnFailure: true })

// ---------------------------------------------------------------------------
// Mutations of a generated JSON value

type MutationKind = 'nul' | 'surrogate' | 'deep' | 'number' | 'wrongType' | 'drop' | 'toolId'
interface Mutation {
  kind: MutationKind
  /** Which node (modulo the node count) and which variant (modulo the variants). */
  at: number
  pick: number
}

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom<MutationKind>('nul', 'surrogate', 'deep', 'number', 'wrongType', 'drop', 'toolId'),
  at: fc.nat(),
  pick: fc.nat(),
})
/** Mostly a few mutations, sometimes none (the valid-ish request as generated). */
const mutationsArb = fc.oneof({ arbitrary: fc.constant<Mutation[]>([]), weight: 1 }, { arbitrary: fc.array(mutationArb, { minLength: 1, maxLength: 3 }), weight: 1 })

const NUMBERS = [1e308, -1e308, 2 ** 53 + 1, -1, 0, 1.5, 1e21, -2147483649, 2147483648, 100_000_001, 4.9e-324]
const WRONG = [null, true, '', [], {}, 'x', 0, [[]], { '': '' }, '[[[[', '{"a":']
const LONE = ['\ud800', '\udc00', '\udbff', 'a\ud83d']
const TOOL_ID_KEYS = new Set(['id', 'tool_call_id', 'tool_use_id', 'toolCallId'])
/** Nesting depths: under, at and over the 64-level limit, and far over it. */
const DEPTHS = [3, 40, 58, 59, 60, 70, 300, 5000]

/** Marks a value to be written nested `levels` deep at serialisation (too deep to build and stringify). */
const DEEP = Symbol('deep')
interface DeepMarker {
  [DEEP]: { levels: number; arrays: boolean; inner: unknown }
}
const isDeep = (v: unknown): v is DeepMarker => typeof v === 'object' && v !== null && DEEP in v

interface Slot {
  parent: Record<string, unknown> | unknown[] | undefined
  key: string | number
  value: unknown
}

function slots(root: unknown): Slot[] {
  const out: Slot[] = [{ parent: undefined, key: '', value: root }]
  for (let i = 0; i < out.length; i++) {
    const v = out[i]!.value
    if (isDeep(v)) continue
    if (Array.isArray(v)) v.forEach((c, k) => out.push({ parent: v, key: k, value: c }))
    else if (v && typeof v === 'object') for (const [k, c] of Object.entries(v)) out.push({ parent: v as Record<string, unknown>, key: k, value: c })
  }
  return out
}

function insertAt(s: string, pick: number, what: string): string {
  const i = s.length === 0 ? 0 : pick % (s.length + 1)
  return s.slice(0, i) + what + s.slice(i)
}

/** Applies mutations to a copy of `value` (the root itself can be replaced). */
function mutate(value: unknown, mutations: readonly Mutation[]): unknown {
  let root: unknown = structuredClone(value)
  for (const m of mutations) {
    const all = slots(root)
    // Tool-id mutations aim at tool-call ids when there are any.
    const ids = all.filter((s) => typeof s.key === 'string' && TOOL_ID_KEYS.has(s.key))
    const pool = m.kind === 'toolId' && ids.length > 0 ? ids : all
    const slot = pool[m.at % pool.length]!
    let next: unknown = slot.value
    let remove = false
    switch (m.kind) {
      case 'nul':
        next = typeof slot.value === 'string' ? insertAt(slot.value, m.pick, '\u0000') : 'a\u0000b'
        break
      case 'surrogate':
        next = insertAt(typeof slot.value === 'string' ? slot.value : '', m.pick, LONE[m.pick % LONE.length]!)
        break
      case 'deep': {
        const levels = DEPTHS[m.pick % DEPTHS.length]!
        const arrays = m.pick % 2 === 1
        if (levels > 300) next = { [DEEP]: { levels, arrays, inner: slot.value } }
        else for (let k = 0; k < levels; k++) next = arrays ? [next] : { a: next }
        break
      }
      case 'number':
        next = NUMBERS[m.pick % NUMBERS.length]
        break
      case 'wrongType':
        next = WRONG[m.pick % WRONG.length]
        break
      case 'drop':
        remove = true
        break
      case 'toolId':
        // A duplicate (every mutated id the same), a missing one, or a wrong type.
        if (m.pick % 3 === 0) next = 'call_dup'
        else if (m.pick % 3 === 1) remove = true
        else next = m.pick
        break
    }
    if (slot.parent === undefined) root = remove ? undefined : next
    else if (remove && Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1)
    else if (remove) delete (slot.parent as Record<string, unknown>)[slot.key as string]
    else (slot.parent as Record<string | number, unknown>)[slot.key] = next
  }
  return root
}

/** JSON text of a value that may hold deep markers (written without recursion into them). */
function toJson(value: unknown): string {
  const deep: DeepMarker[] = []
  const text =
    JSON.stringify(value, (_k, v: unknown) => {
      if (isDeep(v)) {
        deep.push(v)
        return `\u0001deep${deep.length - 1}\u0001`
      }
      return v
    }) ?? 'null'
  return text.replace(/"\\u0001deep(\d+)\\u0001"/g, (_m, i: string) => {
    const { levels, arrays, inner } = deep[Number(i)]![DEEP]
    return (arrays ? '['.repeat(levels) : '{"a":'.repeat(levels)) + toJson(inner) + (arrays ? ']' : '}').repeat(levels)
  })
}

// ---------------------------------------------------------------------------
// Requests generated from the routes' schemas

const FORMATS = ['openai', 'anthropic', 'ai-sdk'] as const
const MODELS = ['gpt-4o', 'gpt-4o', 'gpt-4.1', 'claude-sonnet-4-5', 'my-local-model', 'gpt-4', '']
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 })
/** Integers of a schema range: mostly inside, sometimes on the edges, rarely just outside. */
const intIn = (min: number, max: number) =>
  fc.oneof({ arbitrary: fc.integer({ min, max }), weight: 12 }, { arbitrary: fc.constantFrom(min, max), weight: 2 }, { arbitrary: fc.constantFrom(min - 1, max + 1), weight: 1 })

/** A conversation in one of the formats (small: at most three turns). */
const conversationArb = conversationInFormatArb({ maxTurns: 3 }).map(({ format, messages, system }) => ({ format, messages, system }))

// Mostly settings that leave room (the 400 for those that do not is one case among many).
const thresholdArb = fc.record(
  {
    contextLimit: fc.oneof({ arbitrary: fc.integer({ min: 20_000, max: 2_000_000 }), weight: 4 }, { arbitrary: intIn(1, 100_000_000), weight: 1 }),
    systemReserve: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 3_000 }), weight: 4 }, { arbitrary: intIn(0, 200_000), weight: 1 }),
    outputReserve: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 3_000 }), weight: 4 }, { arbitrary: intIn(0, 200_000), weight: 1 }),
    safetyBuffer: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 3_000 }), weight: 4 }, { arbitrary: intIn(0, 200_000), weight: 1 }),
    thresholdPercent: fc.oneof(fc.double({ min: 0, max: 1.2, noNaN: true }), fc.constantFrom(0, 1, 0.8)),
  },
  { requiredKeys: [] },
)

const estimateBodyArb = fc
  .tuple(
    conversationArb,
    fc.record(
      {
        model: fc.constantFrom(...MODELS),
        method: fc.constantFrom('tokenizer', 'heuristic', 'provider'),
        tools: fc.array(fc.record({ type: fc.constant('function'), function: fc.record({ name: fc.string({ maxLength: 10 }), parameters: fc.jsonValue({ maxDepth: 3 }) }) }), { maxLength: 2 }),
      },
      { requiredKeys: [] },
    ),
    opt(thresholdArb),
    fc.boolean(),
  )
  .map(([conv, fields, threshold, withFormat]) => ({
    messages: conv.messages,
    ...(conv.system !== undefined ? { system: conv.system } : {}),
    ...(withFormat ? { format: conv.format } : {}),
    ...fields,
    ...threshold,
  }))

const strategyName = fc.constantFrom('mask', 'rules', 'llm', 'truncate')
const compactFieldsArb = fc.record(
  {
    model: fc.constantFrom(...MODELS),
    targetTokens: fc.oneof(intIn(1, 100_000_000), fc.integer({ min: 50, max: 3000 })),
    keepFirst: intIn(0, 1_000),
    // keepRecent or keepRecentTokens (both is a 400, one case among the mutations' many).
    keep: fc.oneof(intIn(0, 30).map((keepRecent) => ({ keepRecent })), intIn(0, 5_000).map((keepRecentTokens) => ({ keepRecentTokens }))),
    strategy: fc.oneof(strategyName, fc.uniqueArray(strategyName, { minLength: 1, maxLength: 4 })),
    keepToolResults: intIn(0, 10),
    excludeTools: fc.array(fc.constantFrom('bash', 'read_file', 'x'), { maxLength: 2 }),
    clearToolInputs: fc.oneof(fc.boolean(), intIn(1, 1_000)),
    preserveErrorDetails: fc.boolean(),
    maxSummaryTokens: intIn(50, 100_000),
    summaryRole: fc.constantFrom('system', 'developer', 'user', 'assistant'),
    instructions: fc.string({ maxLength: 40 }),
    instructionsMode: fc.constantFrom('replace', 'append'),
    dryRun: fc.boolean(),
    force: fc.boolean(),
    onBrokenInput: fc.constantFrom('repair', 'reject'),
  },
  { requiredKeys: [] },
)

const compactBodyArb = fc.tuple(conversationArb, compactFieldsArb, opt(thresholdArb), fc.boolean()).map(([conv, { keep, ...fields }, threshold, withFormat]) => ({
  messages: conv.messages,
  ...(conv.system !== undefined ? { system: conv.system } : {}),
  ...(withFormat ? { format: conv.format } : {}),
  ...fields,
  ...keep,
  ...threshold,
}))

const settingsArb = fc.record(
  {
    format: fc.constantFrom(...FORMATS),
    model: fc.constantFrom(...MODELS),
    windowMessages: intIn(1, 100_000),
    windowTokens: intIn(1, 10_000_000),
    summaryBudget: intIn(100, 1_000_000),
    batchSize: intIn(1, 1_000),
    mode: fc.constantFrom('rules', 'llm'),
    system: fc.oneof(fc.string({ maxLength: 30 }), fc.constant(null), fc.constant([{ type: 'text', text: 'be brief' }])),
    summarizer: fc.oneof(fc.constant(null), fc.record({ provider: fc.constantFrom('openai', 'anthropic') })),
  },
  { requiredKeys: [] },
)

/** Session ids: valid ones (1-200 of A-Z a-z 0-9 . _ : -) mostly, and the edges around them. */
const ID_CHARS = 'ABCXYZabcxyz0189._:-'
const validIdArb = fc.oneof(
  fc.string({ unit: fc.constantFrom(...ID_CHARS), minLength: 1, maxLength: 12 }),
  fc.integer({ min: 101, max: 200 }).map((n) => 'L'.repeat(n)),
)
/** How to write it in the URL, and the id itself when the schema accepts it. */
interface FuzzId {
  url: string
  raw?: string
}
const idArb: fc.Arbitrary<FuzzId> = fc.oneof(
  { arbitrary: validIdArb.map((id) => ({ url: encodeURIComponent(id), raw: id })), weight: 6 },
  { arbitrary: validIdArb.map((id) => ({ url: id.replace(/:/g, '%3A'), raw: id })), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      { url: 'M'.repeat(201) },
      { url: 'M'.repeat(700) },
      { url: 'M'.repeat(5000) },
      { url: 'a%00b' },
      { url: 'a%2Fb' },
      { url: '%ZZ' },
      { url: '%E0%A4%A' },
      { url: '%ED%A0%80' },
      { url: 'caf%C3%A9' },
      { url: 'a%20b' },
      { url: '..', raw: '..' },
    ),
    weight: 2,
  },
)

/** Query strings: declared parameters with valid and invalid values, unknown ones, repeats, bad encodings. */
function queryArb(declared: Record<string, fc.Arbitrary<string>>): fc.Arbitrary<string> {
  const names = Object.keys(declared)
  const pair: fc.Arbitrary<[string, string]> = fc.oneof(
    ...(names.length > 0 ? [{ arbitrary: fc.constantFrom(...names).chain((n) => fc.tuple(fc.constant(n), declared[n]!)), weight: 6 }] : []),
    { arbitrary: fc.tuple(fc.constantFrom('foo', 'budjet', 'x', '__proto__', 'constructor', 'a[b]'), fc.string({ maxLength: 5 })), weight: 1 },
    { arbitrary: fc.tuple(fc.constantFrom(...names, 'q'), fc.constantFrom('%00', '%ZZ', '%ED%A0%80', '', '1e3', '-1', '99999999999999999999', 'NaN')), weight: 1 },
  )
  const some = fc.array(pair, { minLength: 1, maxLength: 4 }).map((pairs) => '?' + pairs.map(([k, v]) => `${k}=${/%/.test(v) ? v : encodeURIComponent(v)}`).join('&'))
  // Mostly none (or only declared ones): a bad query string hides the rest of the request.
  return fc.oneof({ arbitrary: fc.constant(''), weight: names.length > 0 ? 2 : 5 }, { arbitrary: some, weight: 1 })
}

const contextQueryArb = queryArb({
  budget: fc.oneof(fc.integer({ min: 1, max: 100_000_000 }).map(String), fc.constantFrom('0', '1', '100000001', '1.5', 'abc')),
  format: fc.constantFrom(...FORMATS, 'xml'),
  model: fc.constantFrom(...MODELS),
})
const checkpointsQueryArb = queryArb({
  cursor: fc.oneof(fc.base64String({ maxLength: 12 }), fc.string({ maxLength: 8 })),
  limit: fc.oneof(fc.integer({ min: 1, max: 100 }).map(String), fc.constantFrom('0', '101', '-5', 'ten')),
})
const noQueryArb = queryArb({})

// ---------------------------------------------------------------------------
// Invariants

interface Res {
  statusCode: number
  body: string
  headers: Record<string, string | string[] | number | undefined>
  json(): unknown
}

class Fuzzer {
  requests = 0
  statuses = new Map<number, number>()
  byLabel = new Map<string, Map<number, number>>()
  constructor(readonly app: FastifyInstance) {}

  /** Sends a request and checks the invariants every answer keeps. */
  async send(req: Omit<InjectOptions, 'payload'> & { payload?: unknown }, label: string): Promise<Res> {
    const { payload, ...rest } = req
    const res = (await this.app.inject({
      ...rest,
      ...(payload !== undefined ? { payload: typeof payload === 'string' ? payload : toJson(payload), headers: { 'content-type': 'application/json', ...(rest.headers ?? {}) } } : {}),
    })) as unknown as Res
    this.requests++
    this.statuses.set(res.statusCode, (this.statuses.get(res.statusCode) ?? 0) + 1)
    const mine = this.byLabel.get(label) ?? new Map<number, number>()
    mine.set(res.statusCode, (mine.get(res.statusCode) ?? 0) + 1)
    this.byLabel.set(label, mine)
    const where = `${label}: ${req.method} ${String(req.url).slice(0, 120)}`
    if (res.statusCode >= 500) throw new Error(`${where} answered ${res.statusCode}: ${res.body.slice(0, 500)}\npayload: ${payload === undefined ? '' : toJson(payload).slice(0, 1500)}`)
    // A HEAD answer has no body to check.
    if (res.statusCode >= 400 && req.method !== 'HEAD') {
      let body: Record<string, unknown>
      try {
        body = JSON.parse(res.body)
      } catch {
        throw new Error(`${where}: ${res.statusCode} body is not JSON: ${res.body.slice(0, 300)}`)
      }
      const issuesOk = body.issues === undefined || (Array.isArray(body.issues) && body.issues.every((i: { path?: unknown; message?: unknown }) => typeof i?.path === 'string' && typeof i?.message === 'string'))
      if (typeof body.error !== 'string' || typeof body.message !== 'string' || typeof body.requestId !== 'string' || !issuesOk || body.requestId !== res.headers['x-request-id']) {
        throw new Error(`${where}: ${res.statusCode} is not the error shape: ${res.body.slice(0, 300)}`)
      }
    }
    return res
  }
}

/** Two JSON texts are the same bytes. */
function sameBytes(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** What GET /context gives back for an appended message: the aging fields removed. */
function asReturned(message: unknown, format: string): unknown {
  if (!message || typeof message !== 'object' || Array.isArray(message)) return message
  const { timestamp: _t, createdAt, ...rest } = message as Record<string, unknown>
  return format === 'ai-sdk' && createdAt !== undefined ? { ...rest, createdAt } : rest
}
/**
 * Whether tool calls and results pair up: /context repairs a conversation that does not
 * (an orphan result is dropped, a missing one answered) so that the provider accepts it,
 * so only a paired conversation reads back unchanged from it.
 */
function paired(messages: unknown[], format: string): boolean {
  try {
    return findPairingProblems(parseConversation(messages, { format: format as 'openai' })).length === 0
  } catch {
    return false
  }
}
const isSystem = (m: unknown) => typeof m === 'object' && m !== null && ['system', 'developer'].includes((m as { role?: unknown }).role as string)

/**
 * Lone UTF-16 surrogates, which UTF-8 (so PostgreSQL text) cannot encode. The session
 * routes refuse them where they would be stored as text or jsonb, but a checkpoint's
 * summary is derived from the messages and stored as text (src/checkpoints/**, being
 * fixed for NUL by another engineer), where one becomes U+FFFD. That read-back is a
 * todo, reported at the end, not a pass. NUL is not exempted: it round-trips.
 */
function hasUnstorable(value: unknown): boolean {
  // On the strings themselves: JSON text escapes a lone surrogate into plain ASCII.
  const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === 'string') {
      if (lone.test(v)) return true
    } else if (isDeep(v)) stack.push(v[DEEP].inner)
    else if (v && typeof v === 'object') stack.push(...Object.keys(v), ...Object.values(v))
  }
  return false
}

// ---------------------------------------------------------------------------

t.test('fuzz: every route, never a 5xx, one error shape, stored reads back', async (t) => {
  // No rate limit: thousands of requests from one client are the point here.
  const { app, backend } = await buildTestApp(t, { config: { RATE_LIMIT_MAX: 1_000_000_000 } })
  t.comment(`backend ${backend}, FUZZ_SCALE ${SCALE}${SEED !== undefined ? `, seed ${SEED}` : ''}`)
  const fuzz = new Fuzzer(app)
  const started = Date.now()
  /** Read-backs that failed only on strings storage cannot hold yet (the NUL fix in flight). */
  const unstorable: string[] = []
  /** Summaries the engine wrote with a split surrogate pair from valid input. */
  const splitPairs: string[] = []
  let n = 0

  await t.test('POST /estimate', async (t) => {
    await fc.assert(
      fc.asyncProperty(estimateBodyArb, mutationsArb, noQueryArb, async (body, mutations, query) => {
        await fuzz.send({ method: 'POST', url: `/estimate${query}`, payload: mutate(body, mutations) }, 'estimate')
      }),
      params(1000),
    )
    t.pass(`${runs(1000)} cases`)
  })

  await t.test('POST /compact (and its checkpoints)', async (t) => {
    await fc.assert(
      fc.asyncProperty(compactBodyArb, mutationsArb, fc.option(validIdArb, { nil: undefined }), noQueryArb, async (body, mutations, sessionTail, query) => {
        const sessionId = sessionTail === undefined ? undefined : `c${n++}.${sessionTail}`.slice(0, 200)
        // No llm strategy: no summarizer is configured, so it falls back without a network call either way.
        const payload = mutate({ ...body, ...(sessionId ? { sessionId } : {}) }, mutations)
        const res = await fuzz.send({ method: 'POST', url: `/compact${query}`, payload }, 'compact')
        if (res.statusCode !== 200) return
        const out = res.json() as { compacted: boolean; repairs: unknown[]; messages: unknown[]; summary?: { text: string; keyFacts: unknown }; checkpoint?: { sessionId: string; checkpointNum: number } }
        const sent = (payload as { messages: unknown[] }).messages
        if (!out.compacted && out.repairs.length === 0 && (payload as { format?: string }).format === undefined) {
          // Unchanged means byte for byte (the engine emits kept messages as their raw objects).
          if (!sameBytes(out.messages, sent)) throw new Error(`compacted: false changed the messages: ${toJson(payload).slice(0, 800)}`)
        }
        if (out.checkpoint) {
          const id = encodeURIComponent(out.checkpoint.sessionId)
          const stored = await fuzz.send({ method: 'GET', url: `/sessions/${id}/checkpoints/${out.checkpoint.checkpointNum}` }, 'checkpoint read-back')
          const cp = stored.json() as { summary: string; keyFacts: unknown }
          if (stored.statusCode !== 200 || cp.summary !== (out.summary?.text ?? '') || (out.summary && !sameBytes(cp.keyFacts, out.summary.keyFacts))) {
            if (hasUnstorable(payload)) unstorable.push(`checkpoint ${out.checkpoint.sessionId}`)
            // The engine's truncate summarizer cuts text by UTF-16 index, which can split a
            // surrogate pair of valid input: the summary holds half an emoji, which text
            // storage turns into U+FFFD. An engine defect (src/engine/**, not ours to edit).
            else if (out.summary && hasUnstorable(out.summary.text)) splitPairs.push(`checkpoint ${out.checkpoint.sessionId} (${out.summary.text.length} chars)`)
            else throw new Error(`checkpoint ${out.checkpoint.sessionId}/${out.checkpoint.checkpointNum} does not read back: ${stored.body.slice(0, 300)}`)
          }
        }
      }),
      params(500),
    )
    t.pass(`${runs(500)} cases`)
  })

  await t.test('/sessions/:id/checkpoints, /checkpoints/:num, /stats', async (t) => {
    // A few sessions with checkpoints, then fuzzed reads of them and of unknown ones.
    const known: string[] = []
    for (let i = 0; i < 3; i++) {
      const id = `cps-${i}-${'k'.repeat(i * 80)}`
      const conv = fc.sample(conversationInFormatArb({ maxTurns: 3 }), { numRuns: 1, seed: 42 + i })[0]!
      await fuzz.send({ method: 'POST', url: '/compact', payload: { messages: conv.messages, ...(conv.system !== undefined ? { system: conv.system } : {}), sessionId: id, force: true, targetTokens: 100_000 } }, 'seed checkpoints')
      known.push(id)
    }
    const sessionArb = fc.oneof(fc.constantFrom(...known).map((id): FuzzId => ({ url: encodeURIComponent(id), raw: id })), idArb)
    const numArb = fc.oneof(fc.integer({ min: 1, max: 5 }).map(String), fc.constantFrom('0', '-1', '1.5', 'abc', '2147483648', '99999999999999999999', '%00', '1e3', ''))
    await fc.assert(
      fc.asyncProperty(sessionArb, fc.constantFrom('checkpoints', 'num', 'stats'), numArb, checkpointsQueryArb, noQueryArb, async (id, route, num, query, none) => {
        const url = route === 'checkpoints' ? `/sessions/${id.url}/checkpoints${query}` : route === 'num' ? `/sessions/${id.url}/checkpoints/${num}${none}` : `/sessions/${id.url}/stats${none}`
        await fuzz.send({ method: 'GET', url }, 'checkpoints')
      }),
      params(500),
    )
    t.pass(`${runs(500)} cases`)
  })

  await t.test('/sessions/:id routes in sequences, appends read back from /context', async (t) => {
    type Op =
      | { op: 'put'; body: unknown }
      | { op: 'append'; body: unknown; key?: string }
      | { op: 'get'; path: '' | '/summary' | '/continuation'; query: string }
      | { op: 'context'; query: string }
      | { op: 'putSummary'; body: unknown }
      | { op: 'refresh' }
      | { op: 'delete' }
    const appendBodyArb = fc.tuple(conversationArb, fc.boolean(), fc.integer({ min: 1, max: 6 })).map(([conv, withFormat, take]) => ({
      messages: conv.messages.slice(0, Math.max(1, Math.min(conv.messages.length, take))),
      ...(withFormat ? { format: conv.format } : {}),
      ...(conv.system !== undefined ? { system: conv.system } : {}),
    }))
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      { arbitrary: fc.tuple(settingsArb, mutationsArb).map(([s, m]) => ({ op: 'put' as const, body: mutate(s, m) })), weight: 2 },
      {
        arbitrary: fc.tuple(appendBodyArb, mutationsArb, fc.option(fc.constantFrom('k1', 'k2', 'x'.repeat(200), 'x'.repeat(201)), { nil: undefined })).map(([b, m, key]) => ({ op: 'append' as const, body: mutate(b, m), key })),
        weight: 5,
      },
      { arbitrary: fc.tuple(fc.constantFrom('' as const, '/summary' as const, '/continuation' as const), noQueryArb).map(([path, query]) => ({ op: 'get' as const, path, query })), weight: 2 },
      { arbitrary: contextQueryArb.map((query) => ({ op: 'context' as const, query })), weight: 2 },
      {
        arbitrary: fc
          .tuple(fc.record({ content: fc.constantFrom('## Previously in This Session\n1. Decided to keep one pool\n\n## Yesterday\n\n## This Week\n', '', '# x'), baseVersion: fc.integer({ min: 0, max: 3 }) }, { requiredKeys: ['content'] }), mutationsArb)
          .map(([b, m]) => ({ op: 'putSummary' as const, body: mutate(b, m) })),
        weight: 1,
      },
      { arbitrary: fc.constant({ op: 'refresh' as const }), weight: 1 },
      { arbitrary: fc.constant({ op: 'delete' as const }), weight: 1 },
    )
    await fc.assert(
      fc.asyncProperty(idArb, fc.array(opArb, { minLength: 1, maxLength: 6 }), async (id, ops) => {
        // A fresh session per case: a unique prefix, kept within 200 characters so valid ids stay valid.
        const base = id.raw !== undefined ? `/sessions/${encodeURIComponent(`s${n++}.${id.raw}`.slice(0, 200))}` : `/sessions/${id.url}`
        let appended: unknown[] = []
        let format: string | undefined
        let exists = false
        for (const op of ops) {
          switch (op.op) {
            case 'put': {
              const res = await fuzz.send({ method: 'PUT', url: base, payload: op.body }, 'put session')
              if (res.statusCode < 300) {
                exists = true
                const body = res.json() as { settings: { format?: string } }
                format = body.settings.format ?? format
                const again = await fuzz.send({ method: 'GET', url: base }, 'session read-back')
                if (!sameBytes((again.json() as { settings: unknown }).settings, body.settings)) {
                  throw new Error(`settings do not read back: ${res.body.slice(0, 300)} vs ${again.body.slice(0, 300)}`)
                }
              }
              break
            }
            case 'append': {
              const res = await fuzz.send({ method: 'POST', url: `${base}/messages`, payload: op.body, ...(op.key ? { headers: { 'idempotency-key': op.key } } : {}) }, 'append')
              if (res.statusCode === 200 && res.headers['idempotent-replayed'] !== 'true') {
                exists = true
                appended = [...appended, ...(op.body as { messages: unknown[] }).messages]
              }
              break
            }
            case 'get':
              await fuzz.send({ method: 'GET', url: `${base}${op.path}${op.query}` }, 'get')
              break
            case 'context':
              await fuzz.send({ method: 'GET', url: `${base}/context${op.query}` }, 'context')
              break
            case 'putSummary': {
              const res = await fuzz.send({ method: 'PUT', url: `${base}/summary`, payload: op.body }, 'put summary')
              if (res.statusCode === 200) {
                const again = await fuzz.send({ method: 'GET', url: `${base}/summary` }, 'summary read-back')
                if ((again.json() as { content: string }).content !== (res.json() as { content: string }).content) {
                  throw new Error(`summary does not read back: ${res.body.slice(0, 300)} vs ${again.body.slice(0, 300)}`)
                }
              }
              break
            }
            case 'refresh':
              await fuzz.send({ method: 'POST', url: `${base}/summary/refresh` }, 'refresh')
              break
            case 'delete': {
              const res = await fuzz.send({ method: 'DELETE', url: base }, 'delete')
              if (res.statusCode === 204) {
                appended = []
                exists = false
                format = undefined
              }
              break
            }
          }
        }
        if (!exists || appended.length === 0) return
        // Nothing lost: every appended message comes back, in order, byte for byte.
        const ctx = await fuzz.send({ method: 'GET', url: `${base}/context?budget=100000000` }, 'context read-back')
        if (ctx.statusCode !== 200) throw new Error(`context of a session with messages: ${ctx.statusCode} ${ctx.body.slice(0, 300)}`)
        const got = ctx.json() as { format: string; messages: unknown[] }
        format = got.format
        if (!paired(appended, got.format)) return
        const want = appended.filter((m) => !isSystem(m)).map((m) => asReturned(m, got.format))
        const have = got.messages.filter((m) => !isSystem(m))
        // Anthropic must start with a user turn: the adapter puts its placeholder before an
        // assistant-first session, by design. It is not one of the caller's messages.
        const first = have[0] as { role?: unknown; content?: unknown } | undefined
        if (got.format === 'anthropic' && first?.role === 'user' && first.content === CONTINUATION_TEXT && !sameBytes(first, want[0])) have.shift()
        if (!sameBytes(have, want)) {
          throw new Error(`appended messages do not read back (${format}):\nappended ${toJson(want).slice(0, 1500)}\ncontext  ${toJson(have).slice(0, 1500)}`)
        }
      }),
      params(500),
    )
    t.pass(`${runs(500)} cases`)
  })

  await t.test('any method, any path, raw bodies', async (t) => {
    const pathArb = fc.oneof(
      fc.constantFrom('/estimate', '/compact', '/sessions/x', '/sessions/x/messages', '/sessions/x/summary', '/sessions/x/summary/refresh', '/sessions/x/context', '/sessions/x/checkpoints/1', '/nope', '/sessions/', '/sessions//messages', '/healthz', '/readyz'),
      idArb.map((id) => `/sessions/${id.url}/messages`),
    )
    const contentTypeArb = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'text/plain', 'application/xml', 'multipart/form-data; boundary=x', '', 'application/x-www-form-urlencoded')
    const rawArb = fc.oneof(fc.string({ maxLength: 60 }), fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? ''), fc.constantFrom('{"messages":[', '\u0000', '{"__proto__":{"a":1}}', '{"constructor":{"prototype":{}}}', '[]', 'null', '"x"'))
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'), pathArb, noQueryArb, contentTypeArb, rawArb, async (method, path, query, contentType, raw) => {
        const withBody = method !== 'GET' && method !== 'HEAD'
        const res = await fuzz.send({ method: method as 'GET', url: `${path}${query}`, ...(withBody ? { payload: raw, headers: { 'content-type': contentType } } : {}) }, 'raw')
        if (method === 'HEAD' && res.statusCode >= 400) return // no body to check
      }),
      params(600),
    )
    t.pass(`${runs(600)} cases`)
  })

  const ready = await app.inject({ method: 'GET', url: '/readyz' })
  t.equal(ready.statusCode, 200, 'still ready after the run')
  t.comment(`${fuzz.requests} requests in ${((Date.now() - started) / 1000).toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...fuzz.statuses].sort((a, b) => a[0] - b[0])))}`)
  for (const [label, counts] of fuzz.byLabel) t.comment(`  ${label}: ${JSON.stringify(Object.fromEntries([...counts].sort((a, b) => a[0] - b[0])))}`)
  t.ok((fuzz.statuses.get(200) ?? 0) > 0 && (fuzz.statuses.get(400) ?? 0) > 0, 'both accepted and refused requests were generated')
  if (unstorable.length > 0) {
    t.fail(`lone surrogates read back byte for byte (${unstorable.length} cases, e.g. ${unstorable[0]})`, {
      todo: 'text storage of derived summaries (src/checkpoints/**, src/sessions/**), next to the NUL round-trip fix in flight there (issue 10)',
    })
  } else {
    t.pass('every stored value read back byte for byte, NUL and lone surrogates included')
  }
  // Cuts in summaries (truncate's head and tail, clipped lines) never split a surrogate pair.
  t.equal(splitPairs.length, 0, `summaries of valid input are valid Unicode${splitPairs.length ? ` (e.g. ${splitPairs[0]})` : ''}`)
})

