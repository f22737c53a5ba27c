import t, { type Test } from 'tap'
import { Tiktoken } from 'js-tiktoken/lite'
import o200kRanks from 'js-tiktoken/ranks/o200k_base'
import cl100kRanks from 'js-tiktoken/ranks/cl100k_base'
import {
  countTextTokens,
  countToolSchemaTokens,
  REPLY_PRIMING_TOKENS,
  TOKENS_PER_MESSAGE,
  TOKENS_PER_NAME,
  TOOL_TOKENS_CL100K,
  TOOL_TOKENS_O200K,
  type EncodingName,
} from '../../src/engine/tokens/tokenizer.ts'
import { estimateTextTokens, HEURISTIC_SAFETY_MARGIN } from '../../src/engine/tokens/heuristic.ts'
import { buildCorpora, generateCorpora, loadFixtureConversations } from '../eval/token-corpora.ts'
import { conversationsSkip } from '../helpers/fixtures.ts'

// Independent reference implementation (js-tiktoken), with special tokens treated as text.
const reference: Record<EncodingName, Tiktoken> = {
  o200k_base: new Tiktoken(o200kRanks),
  cl100k_base: new Tiktoken(cl100kRanks),
}
const refCount = (text: string, encoding: EncodingName): number => reference[encoding].encode(text, [], []).length

const ENCODINGS: EncodingName[] = ['o200k_base', 'cl100k_base']
const UNDER_LIMIT = -5 // percent
const OVER_LIMIT = 15 // percent

const corpora = generateCorpora()
const fixturesSkip = conversationsSkip()
const fixtures = fixturesSkip ? undefined : loadFixtureConversations()

const errPct = (estimate: number, exact: number): number => ((estimate - exact) / exact) * 100

/** Compares every text with the reference; reports the count of mismatches and the first few. */
function compareExact(t: Test, texts: readonly string[], encoding: EncodingName, label: string): void {
  let mismatches = 0
  let total = 0
  let refTotal = 0
  const examples: string[] = []
  for (const text of texts) {
    const ours = countTextTokens(text, encoding)
    const ref = refCount(text, encoding)
    total += ours
    refTotal += ref
    if (ours !== ref) {
      mismatches++
      if (examples.length < 3) examples.push(`${JSON.stringify(text.slice(0, 60))}: ${ours} vs ${ref}`)
    }
  }
  t.equal(mismatches, 0, `${label} (${encoding}): every text matches js-tiktoken`, { examples })
  t.equal(total, refTotal, `${label} (${encoding}): totals match (${refTotal} tokens)`)
}

t.test('exact counts match js-tiktoken on the generated corpora', async (t) => {
  for (const encoding of ENCODINGS) {
    for (const c of corpora) compareExact(t, c.samples, encoding, c.label)
  }
})

t.test('exact counts match js-tiktoken on fixture conversations', { skip: fixturesSkip }, async (t) => {
  for (const f of fixtures ?? []) {
    const texts = f.messages.flat()
    for (const encoding of ENCODINGS) compareExact(t, texts, encoding, f.file)
  }
})

t.test('special-token text in user content is counted as plain text, not thrown on', async (t) => {
  const texts = [
    '<|endoftext|>',
    'before <|endoftext|> after',
    'a prompt with <|im_start|>system\nignore me<|im_end|> and <|endofprompt|> and <|fim_prefix|>',
  ]
  for (const encoding of ENCODINGS) {
    for (const text of texts) {
      let n = -1
      t.doesNotThrow(() => {
        n = countTextTokens(text, encoding)
      }, `${encoding}: ${JSON.stringify(text.slice(0, 30))}`)
      t.equal(n, refCount(text, encoding), `${encoding}: same count as js-tiktoken with specials as text`)
      t.ok(n > 1, 'a special token string spans several ordinary tokens')
    }
  }
  t.ok(estimateTextTokens('<|endoftext|>') > 0)
})

t.test('empty text is zero tokens', async (t) => {
  for (const encoding of ENCODINGS) t.equal(countTextTokens('', encoding), 0, encoding)
  t.equal(estimateTextTokens(''), 0, 'heuristic')
})

t.test('chat overhead constants follow the OpenAI cookbook', async (t) => {
  t.equal(TOKENS_PER_MESSAGE, 3)
  t.equal(TOKENS_PER_NAME, 1)
  t.equal(REPLY_PRIMING_TOKENS, 3)
  t.same(
    { ...TOOL_TOKENS_O200K },
    { funcInit: 7, propInit: 3, propKey: 3, enumInit: -3, enumItem: 3, funcEnd: 12 },
  )
  t.equal(TOOL_TOKENS_CL100K.funcInit, 10)
})

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_current_weather',
    description: 'Get the current weather in a given location.',
    parameters: {
      type: 'object',
      properties: {
        location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' },
        unit: { type: 'string', description: '', enum: ['celsius', 'fahrenheit'] },
      },
      required: ['location'],
    },
  },
}

t.test('tool schema tokens follow the cookbook formula', async (t) => {
  for (const encoding of ENCODINGS) {
    const k = encoding === 'o200k_base' ? TOOL_TOKENS_O200K : TOOL_TOKENS_CL100K
    // Computed by hand from the cookbook's num_tokens_for_tools, with the reference tokenizer.
    const expected =
      k.funcInit +
      refCount('get_current_weather:Get the current weather in a given location', encoding) +
      k.propInit +
      (k.propKey + refCount('location:string:The city and state, e.g. San Francisco, CA', encoding)) +
      (k.propKey + k.enumInit + k.enumItem + refCount('celsius', encoding) + k.enumItem + refCount('fahrenheit', encoding) + refCount('unit:string:', encoding)) +
      k.funcEnd
    const n = countToolSchemaTokens([weatherTool], encoding)
    t.equal(n, expected, `${encoding}: ${n} tokens`)
    t.ok(n > 0)
    t.equal(countToolSchemaTokens([weatherTool], encoding), n, 'deterministic')
    t.equal(countToolSchemaTokens([structuredClone(weatherTool)], encoding), n, 'depends on content only')
  }
})

t.test('tool schema counting: flat shape, several tools, fallbacks', async (t) => {
  const enc: EncodingName = 'o200k_base'
  const one = countToolSchemaTokens([weatherTool], enc)
  t.equal(countToolSchemaTokens([weatherTool.function], enc), one, 'flat {name, description, parameters} shape counts the same')
  t.equal(countToolSchemaTokens([], enc), 0, 'no tools, no tokens')
  t.equal(countToolSchemaTokens([weatherTool, weatherTool], enc), 2 * one - TOOL_TOKENS_O200K.funcEnd, 'func_end is counted once per request')
  const noParams = { type: 'function', function: { name: 'ping' } }
  t.equal(countToolSchemaTokens([noParams], enc), TOOL_TOKENS_O200K.funcInit + refCount('ping:', enc) + TOOL_TOKENS_O200K.funcEnd)
  const odd = { type: 'web_search', filters: { allowed_domains: ['example.com'] } }
  t.equal(countToolSchemaTokens([odd], enc), refCount(JSON.stringify(odd), enc), 'an unknown shape is counted as its JSON')
  const badParams = { type: 'function', function: { name: 'x', parameters: 'not an object' } }
  t.equal(countToolSchemaTokens([badParams], enc), refCount(JSON.stringify(badParams), enc), 'non-object parameters fall back to JSON')
  t.ok(countToolSchemaTokens([null, 42, 'str'], enc) > 0, 'garbage entries still count, without throwing')
})

function checkHeuristic(t: Test, label: string, samples: readonly (readonly string[])[]): void {
  let exact = 0
  let estimate = 0
  for (const texts of samples) {
    for (const text of texts) {
      exact += countTextTokens(text, 'o200k_base')
      estimate += estimateTextTokens(text)
    }
  }
  const err = errPct(estimate, exact)
  t.ok(err >= UNDER_LIMIT, `${label}: heuristic under-counts by no more than 5% (error ${err.toFixed(1)}%)`)
  t.ok(err < OVER_LIMIT, `${label}: heuristic over-counts by less than 15% (error ${err.toFixed(1)}%)`)
}

t.test('heuristic is within targets on every generated class', async (t) => {
  t.ok(corpora.length >= 9, 'all classes generated')
  for (const c of corpora) checkHeuristic(t, c.label, c.samples.map((s) => [s]))
})

t.test('heuristic is within targets on fixture conversations', { skip: fixturesSkip }, async (t) => {
  for (const f of fixtures ?? []) checkHeuristic(t, f.file, f.messages)
})

t.test('heuristic basics', async (t) => {
  t.equal(estimateTextTokens('hello'), 1)
  t.ok(Number.isInteger(estimateTextTokens('Hello, world! 你好，世界。')), 'returns an integer')
  // chars/4 is the baseline this estimator must beat on dense text.
  const cjk = corpora.find((c) => c.key === 'zh')!.samples.join('\n')
  t.ok(estimateTextTokens(cjk) > Math.ceil(cjk.length / 4) * 1.5, 'CJK is not priced like English')
  const hash = corpora.find((c) => c.key === 'hash')!.samples[0]
  t.ok(estimateTextTokens(hash) > Math.ceil(hash.length / 4), 'hash-heavy JSON is not priced like English')
  // Linear time: a pathological long input finishes quickly.
  const long = 'a'.repeat(200_000) + '='.repeat(200_000) + ' '.repeat(200_000) + '1'.repeat(200_000)
  const start = performance.now()
  t.ok(estimateTextTokens(long) > 0)
  t.ok(performance.now() - start < 2000, 'one pass over 800k chars')
  t.ok(HEURISTIC_SAFETY_MARGIN >= 1 && HEURISTIC_SAFETY_MARGIN <= 2, `safety margin ${HEURISTIC_SAFETY_MARGIN}`)
})

t.test('generated corpora are deterministic and large enough', async (t) => {
  t.same(buildCorpora(), corpora, 'a fresh build is identical')
  for (const c of corpora) {
    let bytes = 0
    for (const s of c.samples) bytes += Buffer.byteLength(s, 'utf8')
    t.ok(bytes >= 19_000, `${c.label}: ${bytes} bytes`)
  }
})
