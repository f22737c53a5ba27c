/**
 * Proves test/fakes/fake-llm-provider.ts against the REAL SDKs (openai 6.x,
 * @anthropic-ai/sdk 1.x): happy paths, deterministic summaries, token counts,
 * every fault kind, auth, context-window enforcement and prompt shutdown.
 */
import t from 'tap';
import type * as Tap from 'tap';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import {
  countRequestTokens,
  extractFilePaths,
  fakeSummaryFor,
  startFakeProvider,
} from './fake-llm-provider.ts';
import type { FakeProvider } from './fake-llm-provider.ts';

const KEY = 'test-key';
const SECTIONS = [
  '### Original Task',
  '### Completed Work',
  '### Key Technical Decisions',
  '### Current State',
  '### Pending Work',
  '### Errors & Resolutions',
];

/** A transcript a compaction request could carry. */
const TRANSCRIPT = [
  'USER: Fix the widget rendering bug in /testbed/django/forms/widgets.py',
  'ASSISTANT: Reading src/engine/compact.ts and tests/test_widgets.py first.',
  'TOOL: Traceback (most recent call last):',
  '  File "/testbed/django/forms/widgets.py", line 42, in render',
  'TypeError: render() got an unexpected keyword argument',
  'TOOL: FAILED tests/test_widgets.py::test_render - AssertionError',
  'ASSISTANT: Next step: patch the render signature.',
].join('\n');

/**
 * `t.rejects(p, Class)` is not reliable here: tap matches error classes by name and
 * openai's errors all have `name === 'Error'`. So assert with `instanceof` instead.
 */
async function rejectsWith(
  t: Tap.Test,
  promise: Promise<unknown>,
  ErrorClass: abstract new (...args: any[]) => Error,
): Promise<Error | undefined> {
  try {
    await promise;
  } catch (err) {
    t.ok(err instanceof ErrorClass, `rejects with ${ErrorClass.name} (got ${(err as Error)?.constructor?.name}: ${(err as Error)?.message})`);
    return err as Error;
  }
  t.fail(`expected rejection with ${ErrorClass.name}`);
  return undefined;
}

let fake: FakeProvider;
let openai: OpenAI;
let anthropic: Anthropic;

t.before(async () => {
  fake = await startFakeProvider({ apiKey: KEY });
  openai = new OpenAI({ apiKey: KEY, baseURL: fake.openaiBaseURL, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: KEY, baseURL: fake.anthropicBaseURL, maxRetries: 0 });
});
t.beforeEach(() => fake.reset());
t.teardown(() => fake.close());

const chat = (content: string, extra: Partial<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming> = {}) =>
  openai.chat.completions.create({ model: 'fake-summarizer', messages: [{ role: 'user', content }], ...extra });
const message = (content: string, maxTokens = 4096) =>
  anthropic.messages.create({ model: 'claude-fake', max_tokens: maxTokens, messages: [{ role: 'user', content }] });

t.test('URLs and auth headers the SDKs use', async (t) => {
  t.match(fake.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.equal(fake.openaiBaseURL, `${fake.url}/v1`);
  t.equal(fake.anthropicBaseURL, fake.url);
  await chat('hi');
  await message('hi');
  const [o, a] = fake.requests;
  t.equal(o.path, '/v1/chat/completions');
  t.equal(o.headers.authorization, `Bearer ${KEY}`);
  t.equal(a.path, '/v1/messages');
  // @anthropic-ai/sdk 1.x sends apiKey as a Bearer token (not x-api-key) and pins its API version.
  t.equal(a.headers.authorization, `Bearer ${KEY}`);
  t.ok(a.headers['anthropic-version'], 'anthropic-version header sent');
  t.type(o.receivedAt, 'number');
});

t.test('OpenAI chat.completions returns the deterministic summary', async (t) => {
  const body = {
    model: 'fake-summarizer',
    messages: [
      { role: 'system' as const, content: 'Summarise the session. This is Compaction Round 3.' },
      { role: 'user' as const, content: TRANSCRIPT },
    ],
  };
  const res = await openai.chat.completions.create(body);
  const content = res.choices[0].message.content ?? '';
  t.equal(res.object, 'chat.completion');
  t.equal(res.model, 'fake-summarizer');
  t.equal(res.choices[0].message.role, 'assistant');
  t.equal(res.choices[0].finish_reason, 'stop');
  t.ok(content.startsWith('## Session Summary (Compaction Round 3)\n'), 'round taken from the prompt');
  for (const s of SECTIONS) t.ok(content.includes(s), `has ${s}`);

  const completed = content.slice(content.indexOf('### Completed Work'), content.indexOf('### Key Technical'));
  for (const p of ['/testbed/django/forms/widgets.py', 'src/engine/compact.ts', 'tests/test_widgets.py']) {
    t.ok(completed.includes(p), `Completed Work lists ${p}`);
  }
  const errors = content.slice(content.indexOf('### Errors & Resolutions'));
  t.match(errors, /Traceback \(most recent call last\)/);
  t.match(errors, /TypeError: render\(\) got an unexpected keyword argument/);
  t.match(errors, /FAILED tests\/test_widgets\.py/);
  t.match(content, /### Pending Work\n- ASSISTANT: Next step: patch the render signature\./);

  // Deterministic, and exposed as a helper.
  t.equal(content, fakeSummaryFor(body));
  const again = await openai.chat.completions.create(body);
  t.equal(again.choices[0].message.content, content);

  // usage = ceil(chars/4) of all text.
  const promptTokens = Math.ceil((body.messages[0].content.length + body.messages[1].content.length) / 4);
  t.equal(res.usage?.prompt_tokens, promptTokens);
  t.equal(countRequestTokens(body), promptTokens);
  t.equal(res.usage?.completion_tokens, Math.ceil(content.length / 4));
  t.equal(res.usage?.total_tokens, promptTokens + Math.ceil(content.length / 4));
  t.equal(fake.lastRequest?.inputTokens, promptTokens);
  t.same(fake.lastRequest?.body, body, 'request body recorded as parsed JSON');
});

t.test('Compaction Round defaults to 1 and uses the largest round mentioned', async (t) => {
  const r1 = await chat('no round here');
  t.match(r1.choices[0].message.content, /^## Session Summary \(Compaction Round 1\)\n/);
  const r2 = await chat('## Session Summary (Compaction Round 4)\n...\nNow write Compaction Round 5.');
  t.match(r2.choices[0].message.content, /^## Session Summary \(Compaction Round 5\)\n/);
});

t.test('max_tokens truncates to ~max_tokens*4 chars with finish_reason length / stop_reason max_tokens', async (t) => {
  const o = await chat(TRANSCRIPT, { max_tokens: 10 });
  t.equal(o.choices[0].message.content?.length, 40);
  t.equal(o.choices[0].finish_reason, 'length');
  t.equal(o.usage?.completion_tokens, 10);
  const o2 = await chat(TRANSCRIPT, { max_completion_tokens: 12 });
  t.equal(o2.choices[0].message.content?.length, 48, 'max_completion_tokens honoured too');

  const a = await message(TRANSCRIPT, 10);
  t.equal(a.stop_reason, 'max_tokens');
  t.equal(a.content[0].type === 'text' ? a.content[0].text.length : -1, 40);
  t.equal(a.usage.output_tokens, 10);
  const big = await message(TRANSCRIPT, 4096);
  t.equal(big.stop_reason, 'end_turn');
});

t.test('Anthropic messages.create and countTokens', async (t) => {
  const params = {
    model: 'claude-fake',
    max_tokens: 2048,
    system: 'You compact sessions (Compaction Round 2).',
    messages: [
      { role: 'user' as const, content: TRANSCRIPT },
      { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'Working on src/engine/compact.ts' }] },
      { role: 'user' as const, content: 'Summarise now.' },
    ],
  };
  const msg = await anthropic.messages.create(params);
  t.equal(msg.type, 'message');
  t.equal(msg.role, 'assistant');
  t.equal(msg.model, 'claude-fake');
  t.equal(msg.stop_reason, 'end_turn');
  t.equal(msg.content.length, 1);
  const text = msg.content[0].type === 'text' ? msg.content[0].text : '';
  t.ok(text.startsWith('## Session Summary (Compaction Round 2)\n'));
  for (const s of SECTIONS) t.ok(text.includes(s), `has ${s}`);
  t.ok(text.includes('/testbed/django/forms/widgets.py'));
  t.equal(text, fakeSummaryFor(params));

  const chars = params.system.length + TRANSCRIPT.length + 'Working on src/engine/compact.ts'.length + 'Summarise now.'.length;
  t.equal(msg.usage.input_tokens, Math.ceil(chars / 4));
  t.equal(msg.usage.output_tokens, Math.ceil(text.length / 4));

  const { max_tokens: _unused, ...countParams } = params;
  const count = await anthropic.messages.countTokens(countParams);
  t.same(count, { input_tokens: Math.ceil(chars / 4) });
  t.equal(fake.lastRequest?.path, '/v1/messages/count_tokens');
});

t.test('GET /v1/models in both shapes', async (t) => {
  const page = await openai.models.list();
  t.same(page.data.map((m) => m.id), ['fake-summarizer']);
  const apage = await anthropic.models.list();
  t.same(apage.data.map((m) => m.id), ['fake-summarizer']);
});

t.test('SSE streaming works with both SDKs', async (t) => {
  const stream = await openai.chat.completions.create({
    model: 'fake-summarizer',
    messages: [{ role: 'user', content: TRANSCRIPT }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined | null;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
    usage = chunk.usage ?? usage;
  }
  t.equal(text, (await chat(TRANSCRIPT)).choices[0].message.content);
  t.equal(finish, 'stop');
  t.equal(usage?.prompt_tokens, Math.ceil(TRANSCRIPT.length / 4));

  const final = await anthropic.messages
    .stream({ model: 'claude-fake', max_tokens: 20, messages: [{ role: 'user', content: TRANSCRIPT }] })
    .finalMessage();
  t.equal(final.stop_reason, 'max_tokens');
  t.equal(final.content[0].type === 'text' ? final.content[0].text.length : -1, 80);
  t.equal(final.usage.output_tokens, 20);
});

t.test('ok with toolCalls: tool calls in both SDKs, streamed or not', async (t) => {
  const calls = [
    { id: 'call_a', name: 'read_file', input: { path: 'src/db.ts' } },
    { name: 'bash', input: { command: 'npm test' } },
  ];
  fake.enqueue({ kind: 'ok', toolCalls: calls }, { kind: 'ok', content: 'Reading.', toolCalls: calls.slice(0, 1) });
  const plain = await chat('go');
  t.equal(plain.choices[0].finish_reason, 'tool_calls');
  t.equal(plain.choices[0].message.content, null, 'no text with the calls');
  t.same(
    plain.choices[0].message.tool_calls,
    [
      { id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/db.ts"}' } },
      { id: 'call_1_1', type: 'function', function: { name: 'bash', arguments: '{"command":"npm test"}' } },
    ],
    'ids default to call_<request>_<index>',
  );
  const withText = await chat('go');
  t.equal(withText.choices[0].message.content, 'Reading.');
  t.equal(withText.choices[0].message.tool_calls?.length, 1);

  fake.enqueue({ kind: 'ok', toolCalls: calls });
  const stream = await openai.chat.completions.create({ model: 'fake-summarizer', messages: [{ role: 'user', content: 'go' }], stream: true });
  const streamed = new Map<number, { id?: string; name?: string; args: string }>();
  let finish: string | null = null;
  for await (const chunk of stream) {
    for (const d of chunk.choices[0]?.delta.tool_calls ?? []) {
      const c = streamed.get(d.index) ?? { args: '' };
      c.id ??= d.id;
      c.name ??= d.function?.name;
      c.args += d.function?.arguments ?? '';
      streamed.set(d.index, c);
    }
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  t.equal(finish, 'tool_calls');
  t.same([...streamed.values()].map((c) => [c.name, JSON.parse(c.args)]), calls.map((c) => [c.name, c.input]));

  fake.enqueue({ kind: 'ok', toolCalls: calls });
  const msg = await message('go');
  t.equal(msg.stop_reason, 'tool_use');
  t.same(
    msg.content.map((b) => (b.type === 'tool_use' ? [b.id, b.name, b.input] : b.type)),
    [
      ['call_a', 'read_file', { path: 'src/db.ts' }],
      ['toolu_4_1', 'bash', { command: 'npm test' }],
    ],
  );
  fake.enqueue({ kind: 'ok', content: 'Reading.', toolCalls: calls });
  const final = await anthropic.messages.stream({ model: 'claude-fake', max_tokens: 1024, messages: [{ role: 'user', content: 'go' }] }).finalMessage();
  t.equal(final.stop_reason, 'tool_use');
  t.same(
    final.content.map((b) => (b.type === 'tool_use' ? [b.name, b.input] : b.type === 'text' ? b.text : b.type)),
    ['Reading.', ['read_file', { path: 'src/db.ts' }], ['bash', { command: 'npm test' }]],
  );
});

t.test('a scripted model: content and toolCalls as functions of the request they answer', async (t) => {
  // Call a tool with what the last tool result named, then answer with what the next one said.
  const seen: string[] = [];
  fake.enqueue(
    { kind: 'ok', toolCalls: [{ id: 'c1', name: 'search', input: { q: 'pool' } }] },
    {
      kind: 'ok',
      toolCalls: (turn) => {
        seen.push(`${turn.api}: ${turn.lastMessage}`);
        return [{ id: 'c2', name: 'read', input: { ref: /ref (\w+)/.exec(turn.lastMessage)?.[1] } }];
      },
    },
    { kind: 'ok', content: (turn) => `Read: ${turn.lastMessage} (${turn.pieces.filter((p) => p.role === 'tool').length} tool results)` },
  );
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'go' }];
  const first = (await openai.chat.completions.create({ model: 'm', messages })).choices[0].message;
  messages.push(first, { role: 'tool', tool_call_id: 'c1', content: 'found [ref abc123]' });
  const second = (await openai.chat.completions.create({ model: 'm', messages })).choices[0].message;
  t.same(second.tool_calls?.map((c) => (c.type === 'function' ? JSON.parse(c.function.arguments) : c)), [{ ref: 'abc123' }]);
  messages.push(second, { role: 'tool', tool_call_id: 'c2', content: 'close() runs twice' });
  const third = await openai.chat.completions.create({ model: 'm', messages, stream: true });
  let text = '';
  for await (const chunk of third) text += chunk.choices[0]?.delta.content ?? '';
  t.equal(text, 'Read: close() runs twice (2 tool results)', 'streamed too');
  t.same(seen, ['openai: found [ref abc123]']);

  // Anthropic: the last message is the user turn holding the tool_result blocks.
  fake.enqueue({ kind: 'ok', content: (turn) => `${turn.api} saw: ${turn.lastMessage}` });
  const reply = await anthropic.messages.create({
    model: 'claude-fake',
    max_tokens: 1024,
    messages: [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'search', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'three hits' }] },
    ],
  });
  t.same(reply.content, [{ type: 'text', text: 'anthropic saw: three hits', citations: null }]);
});

t.test('programmable content, queue order and default', async (t) => {
  fake.enqueue({ kind: 'ok', content: 'first' }, { kind: 'ok', content: 'second' });
  t.equal(fake.queued, 2);
  t.equal((await chat('x')).choices[0].message.content, 'first');
  const second = await message('x');
  t.same(second.content, [{ type: 'text', text: 'second', citations: null }]);
  t.match((await chat('x')).choices[0].message.content, /^## Session Summary/, 'back to default');

  fake.setDefault({ kind: 'ok', content: 'always' });
  t.equal((await chat('x')).choices[0].message.content, 'always');
  fake.reset();
  t.match((await chat('x')).choices[0].message.content, /^## Session Summary/, 'reset restores default');

  // Untargeted behaviours skip count_tokens/models; `route` targets them.
  fake.enqueue({ kind: 'server-error' });
  t.same(await anthropic.messages.countTokens({ model: 'm', messages: [{ role: 'user', content: 'abcd' }] }), {
    input_tokens: 1,
  });
  await rejectsWith(t, message('x'), Anthropic.InternalServerError);
  fake.enqueue({ kind: 'rate-limit', route: 'messages.count_tokens', retryAfterSeconds: 0 });
  await rejectsWith(t, anthropic.messages.countTokens({ model: 'm', messages: [] }), Anthropic.RateLimitError);
});

t.test('ok delayMs and global latencyMs', async (t) => {
  fake.enqueue({ kind: 'ok', content: 'late', delayMs: 150 });
  let start = Date.now();
  t.equal((await chat('x')).choices[0].message.content, 'late');
  t.ok(Date.now() - start >= 140, 'delayed');

  const slow = await startFakeProvider({ latencyMs: 150 });
  t.teardown(() => slow.close());
  const client = new OpenAI({ apiKey: KEY, baseURL: slow.openaiBaseURL, maxRetries: 0 });
  start = Date.now();
  await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
  t.ok(Date.now() - start >= 140, 'global latency applied');
});

t.test('rate-limit → RateLimitError in both SDKs, provider-shaped', async (t) => {
  fake.enqueue({ kind: 'rate-limit', retryAfterSeconds: 7 });
  const oe = await chat('x').catch((e: unknown) => e);
  t.ok(oe instanceof OpenAI.RateLimitError);
  if (oe instanceof OpenAI.RateLimitError) {
    t.equal(oe.status, 429);
    t.equal(oe.code, 'rate_limit_exceeded');
    t.equal(oe.headers?.get('retry-after'), '7');
  }

  fake.enqueue({ kind: 'rate-limit', retryAfterSeconds: 7 });
  const ae = await message('x').catch((e: unknown) => e);
  t.ok(ae instanceof Anthropic.RateLimitError);
  if (ae instanceof Anthropic.RateLimitError) {
    t.equal(ae.type, 'rate_limit_error');
    t.match(ae.error, { type: 'error', error: { type: 'rate_limit_error' } });
    t.equal(ae.headers.get('retry-after'), '7');
    t.ok(ae.requestID, 'request-id header');
  }
});

t.test('retry-after is honoured when maxRetries > 0', async (t) => {
  // retry-after: 1 (seconds) — Anthropic client retries after ~1 s and succeeds.
  const retrying = new Anthropic({ apiKey: KEY, baseURL: fake.anthropicBaseURL, maxRetries: 1 });
  fake.enqueue({ kind: 'rate-limit', retryAfterSeconds: 1 });
  const start = Date.now();
  const msg = await retrying.messages.create({ model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] });
  const elapsed = Date.now() - start;
  t.equal(msg.type, 'message');
  t.ok(elapsed >= 950 && elapsed < 5000, `waited ~1s, not the default backoff (${elapsed} ms)`);
  t.equal(fake.requests.length, 2);
  t.equal(fake.requests[0].status, 429);
  t.equal(fake.requests[1].headers['x-stainless-retry-count'], '1');

  // retry-after-ms (preferred by both SDKs) for fast tests; server errors are retried too.
  const oretry = new OpenAI({ apiKey: KEY, baseURL: fake.openaiBaseURL, maxRetries: 2 });
  fake.reset();
  fake.enqueue({ kind: 'rate-limit', retryAfterMs: 20 }, { kind: 'server-error', status: 503 });
  const res = await oretry.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
  t.match(res.choices[0].message.content, /^## Session Summary/);
  t.same(fake.requests.map((r) => r.status), [429, 503, 200]);

  // x-should-retry: false stops the retry loop.
  fake.reset();
  fake.enqueue({ kind: 'server-error', shouldRetry: false });
  await rejectsWith(t, oretry.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }), OpenAI.InternalServerError);
  t.equal(fake.requests.length, 1);
});

t.test('server errors → InternalServerError (529 → Anthropic OverloadedError)', async (t) => {
  for (const status of [500, 502, 503, 529] as const) {
    fake.enqueue({ kind: 'server-error', status });
    const oe = await chat('x').catch((e: unknown) => e);
    t.ok(oe instanceof OpenAI.InternalServerError, `openai ${status}`);
    t.equal((oe as InstanceType<typeof OpenAI.APIError>).status, status);

    fake.enqueue({ kind: 'server-error', status });
    const ae = await message('x').catch((e: unknown) => e);
    t.ok(ae instanceof Anthropic.InternalServerError, `anthropic ${status}`);
  }
  fake.enqueue({ kind: 'server-error', status: 529 });
  const overloaded = await message('x').catch((e: unknown) => e);
  t.ok(overloaded instanceof Anthropic.OverloadedError);
  t.match((overloaded as InstanceType<typeof Anthropic.APIError>).error, { error: { type: 'overloaded_error' } });
});

t.test('timeout → APIConnectionTimeoutError with a short timeout option', async (t) => {
  fake.enqueue({ kind: 'timeout' });
  let start = Date.now();
  await rejectsWith(
    t,
    openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, { timeout: 200 }),
    OpenAI.APIConnectionTimeoutError,
  );
  t.ok(Date.now() - start < 5000, 'gave up after the client timeout');

  const shortAnthropic = new Anthropic({ apiKey: KEY, baseURL: fake.anthropicBaseURL, maxRetries: 0, timeout: 200 });
  fake.enqueue({ kind: 'timeout' });
  start = Date.now();
  await rejectsWith(
    t,
    shortAnthropic.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
    Anthropic.APIConnectionTimeoutError,
  );
  t.ok(Date.now() - start < 5000, 'gave up after the client timeout');
  t.equal(fake.requests.length, 2, 'both requests reached the fake');
  t.equal(fake.requests[0].status, undefined, 'never answered');
});

t.test('malformed-json → the SDK JSON parse fails (SyntaxError)', async (t) => {
  fake.enqueue({ kind: 'malformed-json' });
  await rejectsWith(t, chat('x'), SyntaxError);
  fake.enqueue({ kind: 'malformed-json' });
  await rejectsWith(t, message('x'), SyntaxError);
});

t.test('empty → valid shape, empty content', async (t) => {
  fake.enqueue({ kind: 'empty' });
  const o = await chat('x');
  t.equal(o.choices[0].message.content, '');
  t.equal(o.usage?.completion_tokens, 0);
  fake.enqueue({ kind: 'empty' });
  const a = await message('x');
  t.same(a.content, []);
  t.equal(a.type, 'message');
});

t.test('disconnect → APIConnectionError', async (t) => {
  fake.enqueue({ kind: 'disconnect' });
  const oe = await chat('x').catch((e: unknown) => e);
  t.ok(oe instanceof OpenAI.APIConnectionError);
  t.notOk(oe instanceof OpenAI.APIConnectionTimeoutError);
  fake.enqueue({ kind: 'disconnect' });
  await rejectsWith(t, message('x'), Anthropic.APIConnectionError);
});

t.test('http-error passes any status through in provider shape', async (t) => {
  fake.enqueue({ kind: 'http-error', status: 403, message: 'nope' });
  await rejectsWith(t, chat('x'), OpenAI.PermissionDeniedError);
  fake.enqueue({ kind: 'http-error', status: 403, message: 'nope' });
  const ae = await message('x').catch((e: unknown) => e);
  t.ok(ae instanceof Anthropic.PermissionDeniedError);
  t.match((ae as InstanceType<typeof Anthropic.APIError>).error, { type: 'error', error: { type: 'permission_error', message: 'nope' } });
});

t.test('wrong key → AuthenticationError in provider shape', async (t) => {
  const badOpenAI = new OpenAI({ apiKey: 'wrong-key-123', baseURL: fake.openaiBaseURL, maxRetries: 0 });
  const oe = await badOpenAI.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
  t.ok(oe instanceof OpenAI.AuthenticationError);
  t.equal((oe as InstanceType<typeof OpenAI.APIError>).code, 'invalid_api_key');

  const badAnthropic = new Anthropic({ apiKey: 'wrong-key-123', baseURL: fake.anthropicBaseURL, maxRetries: 0 });
  const ae = await badAnthropic.messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
  t.ok(ae instanceof Anthropic.AuthenticationError);
  t.match((ae as InstanceType<typeof Anthropic.APIError>).error, { type: 'error', error: { type: 'authentication_error' } });
  await rejectsWith(t, badAnthropic.messages.countTokens({ model: 'm', messages: [] }), Anthropic.AuthenticationError);

  // x-api-key is accepted as well as Bearer (raw HTTP, like older SDKs / curl).
  const res = await fetch(`${fake.url}/v1/messages/count_tokens`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'abcdefgh' }] }),
  });
  t.same(await res.json(), { input_tokens: 2 });
  const noVersion = await fetch(`${fake.url}/v1/messages/count_tokens`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: '{}',
  });
  t.equal(noVersion.status, 400);
  t.equal(fake.requests.filter((r) => r.behaviour !== undefined).length, 1, 'rejected requests consume no behaviour');
});

t.test('contextWindow overflow → BadRequestError; requests within it pass', async (t) => {
  const small = await startFakeProvider({ contextWindow: 50 });
  t.teardown(() => small.close());
  const o = new OpenAI({ apiKey: KEY, baseURL: small.openaiBaseURL, maxRetries: 0 });
  const a = new Anthropic({ apiKey: KEY, baseURL: small.anthropicBaseURL, maxRetries: 0 });
  const long = 'x'.repeat(204); // 51 tokens
  const fits = 'x'.repeat(200); // 50 tokens

  small.enqueue({ kind: 'ok', content: 'kept for the next valid request' });
  const oe = await o.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: long }] }).catch((e: unknown) => e);
  t.ok(oe instanceof OpenAI.BadRequestError);
  t.equal((oe as InstanceType<typeof OpenAI.APIError>).code, 'context_length_exceeded');
  t.match((oe as Error).message, /maximum context length is 50 tokens.*resulted in 51 tokens/);
  const ok = await o.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: fits }] });
  t.equal(ok.choices[0].message.content, 'kept for the next valid request', 'overflow did not consume the queue');

  const ae = await a.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: long }] }).catch((e: unknown) => e);
  t.ok(ae instanceof Anthropic.BadRequestError);
  t.match((ae as InstanceType<typeof Anthropic.APIError>).error, {
    error: { type: 'invalid_request_error', message: 'prompt is too long: 51 tokens > 50 maximum' },
  });
  // count_tokens is not limited, so a client can measure before sending.
  t.same(await a.messages.countTokens({ model: 'm', messages: [{ role: 'user', content: long }] }), { input_tokens: 51 });
  t.same(small.requests.map((r) => r.inputTokens), [51, 50, 51, 51]);

  const strict = await startFakeProvider({ contextWindow: 50, contextWindowIncludesMaxTokens: true });
  t.teardown(() => strict.close());
  const sa = new Anthropic({ apiKey: KEY, baseURL: strict.anthropicBaseURL, maxRetries: 0 });
  const se = await sa.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: fits }] }).catch((e: unknown) => e);
  t.ok(se instanceof Anthropic.BadRequestError);
  t.match((se as Error).message, /50 \+ 10 > 50/);
});

t.test('close() returns promptly even with a hanging request', async (t) => {
  const hang = await startFakeProvider({ defaultBehaviour: { kind: 'timeout' } });
  const client = new OpenAI({ apiKey: KEY, baseURL: hang.openaiBaseURL, maxRetries: 0, timeout: 30_000 });
  const pending = client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
  while (hang.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
  const start = Date.now();
  await hang.close();
  const took = Date.now() - start;
  t.ok(took < 2000, `closed promptly (${took} ms)`);
  const err = await pending;
  t.ok(err instanceof OpenAI.APIConnectionError, 'client sees the connection drop');
  await hang.close(); // idempotent
});

t.test('unknown routes 404 with a baseURL hint; invalid bodies 400', async (t) => {
  const noV1 = new OpenAI({ apiKey: KEY, baseURL: fake.url, maxRetries: 0 });
  const e = await noV1.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
  t.ok(e instanceof OpenAI.NotFoundError);
  t.match((e as Error).message, /\/v1/);

  await rejectsWith(
    t,
    anthropic.messages.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] } as unknown as Anthropic.MessageCreateParamsNonStreaming),
    Anthropic.BadRequestError,
  );
  await rejectsWith(t, openai.chat.completions.create({ model: 'm', messages: [] }), OpenAI.BadRequestError);
});

t.test('extractFilePaths', async (t) => {
  t.same(
    extractFilePaths('edit src/foo.ts, /testbed/django/forms/widgets.py and ./lib/x.d.ts:12; not https://example.com/a/b.html nor 1/2.5 nor a/b'),
    ['src/foo.ts', '/testbed/django/forms/widgets.py', './lib/x.d.ts'],
  );
});

// ---------------------------------------------------------------------------
// OpenAI Responses API (POST /v1/responses, test/fakes/fake-responses.ts)
// ---------------------------------------------------------------------------

t.test('Responses API: create returns the deterministic summary as output_text, recorded with route responses', async (t) => {
  const params = {
    model: 'fake-summarizer',
    instructions: 'Summarise the session. This is Compaction Round 3.',
    input: [{ role: 'user' as const, content: TRANSCRIPT }],
  };
  const res = await openai.responses.create(params);
  const text = fakeSummaryFor(params);
  t.ok(text.startsWith('## Session Summary (Compaction Round 3)\n'), 'instructions are part of the prompt');
  t.equal(res.output_text, text, 'the SDK’s output_text is the fake summary');
  t.equal(res.object, 'response');
  t.match(res.id, /^resp_/);
  t.equal(res.status, 'completed');
  t.equal(res.model, 'fake-summarizer');
  t.type(res.created_at, 'number');
  t.same(res.output, [
    { type: 'message', id: res.output[0]?.id, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] },
  ]);
  t.match(res.output[0]?.id, /^msg_/);
  const inputTokens = Math.ceil((params.instructions.length + TRANSCRIPT.length) / 4);
  t.same(res.usage, {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: Math.ceil(text.length / 4),
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + Math.ceil(text.length / 4),
  });
  t.equal(countRequestTokens(params), inputTokens);
  const rec = fake.lastRequest;
  t.equal(rec?.path, '/v1/responses');
  t.equal(rec?.route, 'responses');
  t.equal(rec?.api, 'openai');
  t.equal(rec?.inputTokens, inputTokens);
  t.same(rec?.body, params);
  t.same(JSON.parse(rec?.rawBody ?? ''), params);
  t.equal(rec?.headers.authorization, `Bearer ${KEY}`);
  t.equal(rec?.status, 200);
  t.equal(rec?.behaviour, 'ok');
  t.equal((await openai.responses.create(params)).output_text, text, 'deterministic');

  // A string input; every input item kind and the tool definitions are counted.
  const plain = await openai.responses.create({ model: 'm', input: 'abcdefgh' });
  t.equal(plain.usage?.input_tokens, 2);
  const tools = [{ type: 'function' as const, name: 'read', parameters: { type: 'object', properties: {} }, strict: false }];
  const items = [
    { role: 'developer', content: 'abcd' },
    { role: 'user', content: [{ type: 'input_text', text: 'efgh' }] },
    { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'ijkl' }] },
    { type: 'function_call', call_id: 'c1', name: 'read', arguments: '{"p":1}' },
    { type: 'function_call_output', call_id: 'c1', output: '12345678' },
    { type: 'message', role: 'assistant', id: 'msg_x', status: 'completed', content: [{ type: 'output_text', text: 'mnop', annotations: [] }] },
  ] as unknown as OpenAI.Responses.ResponseInput;
  const counted = await openai.responses.create({ model: 'm', input: items, tools });
  const chars = 4 + 4 + 4 + 7 + 8 + 4 + JSON.stringify(tools[0]).length;
  t.equal(counted.usage?.input_tokens, Math.ceil(chars / 4));
  t.equal(fake.lastRequest?.inputTokens, Math.ceil(chars / 4));
  t.equal(countRequestTokens({ model: 'm', input: items, tools }), Math.ceil(chars / 4));
});

t.test('Responses API: streamed create, responses.stream() and max_output_tokens', async (t) => {
  const params = { model: 'fake-summarizer', input: TRANSCRIPT };
  const expected = (await openai.responses.create(params)).output_text;

  const stream = await openai.responses.create({ ...params, stream: true });
  const types: string[] = [];
  const seqs: number[] = [];
  const deltas: string[] = [];
  let completed: OpenAI.Responses.Response | undefined;
  for await (const event of stream) {
    types.push(event.type);
    seqs.push(event.sequence_number);
    if (event.type === 'response.output_text.delta') deltas.push(event.delta);
    if (event.type === 'response.completed') completed = event.response;
  }
  t.equal(deltas.join(''), expected, 'deltas join to the non-streamed text');
  t.ok(deltas.length > 1 && deltas.every((d) => d.length <= 32), 'chunks of streamChunkChars');
  t.same(seqs, seqs.map((_, i) => i), 'sequence_number counts from 0');
  t.same(
    types.filter((type) => type !== 'response.output_text.delta'),
    [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ],
  );
  t.equal(completed?.status, 'completed');
  t.match(completed?.output, [{ type: 'message', content: [{ type: 'output_text', text: expected }] }]);
  t.equal(completed?.usage?.input_tokens, Math.ceil(TRANSCRIPT.length / 4));

  // The wire: text/event-stream with `event:` and `data:` lines.
  const raw = await fetch(`${fake.openaiBaseURL}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', input: 'hi', stream: true }),
  });
  t.match(raw.headers.get('content-type'), /^text\/event-stream/);
  const wire = await raw.text();
  t.ok(wire.startsWith('event: response.created\ndata: {"type":"response.created","sequence_number":0,'), wire.slice(0, 80));

  // The SDK's stream helper: delta events, iteration, finalResponse().
  const helper = openai.responses.stream(params);
  let helperText = '';
  helper.on('response.output_text.delta', (e) => (helperText += e.delta));
  const final = await helper.finalResponse();
  t.equal(helperText, expected);
  t.equal(final.output_text, expected);
  let iterated = '';
  for await (const e of openai.responses.stream(params)) if (e.type === 'response.output_text.delta') iterated += e.delta;
  t.equal(iterated, expected);

  // max_output_tokens cuts the text: status 'incomplete', streamed as response.incomplete.
  const cut = await openai.responses.create({ ...params, max_output_tokens: 16 });
  t.equal(cut.status, 'incomplete');
  t.same(cut.incomplete_details, { reason: 'max_output_tokens' });
  t.equal(cut.output_text, expected.slice(0, 64));
  t.equal(cut.usage?.output_tokens, 16);
  const cutStream = await openai.responses.create({ ...params, max_output_tokens: 16, stream: true });
  let last = '';
  for await (const e of cutStream) last = e.type;
  t.equal(last, 'response.incomplete');
});

t.test('Responses API: tool calls as function_call items; a scripted turn sees the function_call_output', async (t) => {
  const calls = [
    { id: 'call_a', name: 'read_file', input: { path: 'src/db.ts' } },
    { name: 'bash', input: { command: 'npm test' } },
  ];
  fake.enqueue({ kind: 'ok', toolCalls: calls });
  const res = await openai.responses.create({ model: 'm', input: 'go' });
  t.equal(res.output_text, '', 'no message item with the calls');
  t.match(res.output, [
    { type: 'function_call', id: /^fc_/, call_id: 'call_a', name: 'read_file', arguments: '{"path":"src/db.ts"}', status: 'completed' },
    { type: 'function_call', id: /^fc_/, call_id: 'call_1_1', name: 'bash', arguments: '{"command":"npm test"}', status: 'completed' },
  ]);
  t.equal(res.output.length, 2);

  fake.enqueue(
    { kind: 'ok', content: 'Reading.', toolCalls: calls.slice(0, 1) },
    { kind: 'ok', content: (turn) => `${turn.route}/${turn.api}: ${turn.lastMessage} (${turn.pieces.filter((p) => p.role === 'tool').length} tool results)` },
  );
  const streamed = await openai.responses.stream({ model: 'm', input: 'go' }).finalResponse();
  t.same(streamed.output.map((o) => o.type), ['message', 'function_call']);
  t.equal(streamed.output_text, 'Reading.');
  const call = streamed.output[1];
  t.same(call.type === 'function_call' ? [call.call_id, call.name, JSON.parse(call.arguments)] : call, ['call_a', 'read_file', { path: 'src/db.ts' }]);

  const input: OpenAI.Responses.ResponseInput = [
    { role: 'user', content: 'go' },
    { type: 'function_call', call_id: 'call_a', name: 'read_file', arguments: '{"path":"src/db.ts"}' },
    { type: 'function_call', call_id: 'call_b', name: 'bash', arguments: '{}' },
    { type: 'function_call_output', call_id: 'call_a', output: 'export const db = 1;' },
    { type: 'function_call_output', call_id: 'call_b', output: 'ok 3 tests' },
  ];
  const answer = await openai.responses.create({ model: 'm', input });
  t.equal(answer.output_text, 'responses/openai: export const db = 1;\nok 3 tests (2 tool results)');
});

t.test('Responses API: behaviours, auth, validation and the context window', async (t) => {
  const create = (extra: Record<string, unknown> = {}, client = openai) =>
    client.responses.create({ model: 'fake-summarizer', input: 'x', ...extra } as OpenAI.Responses.ResponseCreateParamsNonStreaming);

  fake.enqueue({ kind: 'rate-limit', retryAfterSeconds: 7 });
  const rl = await create().catch((e: unknown) => e);
  t.ok(rl instanceof OpenAI.RateLimitError, 'untargeted rate-limit applies to responses');
  if (rl instanceof OpenAI.RateLimitError) {
    t.equal(rl.status, 429);
    t.equal(rl.code, 'rate_limit_exceeded');
    t.equal(rl.headers?.get('retry-after'), '7');
    t.match(rl.error, { message: /Rate limit reached/, type: 'requests' });
  }
  fake.enqueue({ kind: 'rate-limit', route: 'responses', retryAfterSeconds: 2 });
  const rls = await openai.responses.create({ model: 'm', input: 'x', stream: true }).catch((e: unknown) => e);
  t.ok(rls instanceof OpenAI.RateLimitError, 'streamed too');
  t.equal((rls as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after'), '2');

  fake.enqueue({ kind: 'server-error', route: 'chat.completions' });
  t.equal((await create({}, openai)).status, 'completed', 'a fault targeted at chat.completions skips responses');
  await rejectsWith(t, chat('x'), OpenAI.InternalServerError);
  fake.enqueue({ kind: 'http-error', status: 403, message: 'nope' });
  await rejectsWith(t, create(), OpenAI.PermissionDeniedError);
  fake.enqueue({ kind: 'disconnect' });
  await rejectsWith(t, create(), OpenAI.APIConnectionError);
  fake.enqueue({ kind: 'empty' });
  t.equal((await create()).output_text, '');

  // truncated: the stream dies after two events.
  fake.enqueue({ kind: 'truncated' });
  const cutTypes: string[] = [];
  const cutErr = await (async () => {
    for await (const e of await openai.responses.create({ model: 'm', input: TRANSCRIPT, stream: true })) cutTypes.push(e.type);
  })().catch((e: unknown) => e);
  t.ok(cutErr instanceof Error, `the stream fails (${(cutErr as Error)?.message})`);
  t.same(cutTypes, ['response.created', 'response.in_progress']);
  fake.enqueue({ kind: 'truncated' });
  t.ok((await create().catch((e: unknown) => e)) instanceof Error, 'the non-streamed body is cut too');

  // 401: no key at all, and a wrong key.
  const noKey = new OpenAI({ apiKey: KEY, baseURL: fake.openaiBaseURL, maxRetries: 0, defaultHeaders: { Authorization: null } });
  const e401 = await create({}, noKey).catch((e: unknown) => e);
  t.ok(e401 instanceof OpenAI.AuthenticationError);
  t.equal((e401 as InstanceType<typeof OpenAI.APIError>).status, 401);
  t.equal(fake.lastRequest?.headers.authorization, undefined);
  t.equal(fake.lastRequest?.behaviour, undefined, 'rejected before any behaviour');
  const wrong = new OpenAI({ apiKey: 'wrong-key-123', baseURL: fake.openaiBaseURL, maxRetries: 0 });
  t.equal(((await create({}, wrong).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>).code, 'invalid_api_key');

  // 400 in OpenAI's shape for a missing model / input.
  const noModel = await openai.responses.create({ input: 'x' } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming).catch((e: unknown) => e);
  t.ok(noModel instanceof OpenAI.BadRequestError);
  t.match((noModel as InstanceType<typeof OpenAI.APIError>).error, { type: 'invalid_request_error', param: 'model', code: 'missing_required_parameter' });
  const noInput = await openai.responses.create({ model: 'm' }).catch((e: unknown) => e);
  t.ok(noInput instanceof OpenAI.BadRequestError);
  t.equal((noInput as InstanceType<typeof OpenAI.APIError>).param, 'input');

  // contextWindow: 400 context_length_exceeded, which does not consume the queue.
  const small = await startFakeProvider({ contextWindow: 50 });
  t.teardown(() => small.close());
  const o = new OpenAI({ apiKey: KEY, baseURL: small.openaiBaseURL, maxRetries: 0 });
  small.enqueue({ kind: 'ok', content: 'kept' });
  const over = await o.responses.create({ model: 'm', instructions: 'abcd', input: 'x'.repeat(200) }).catch((e: unknown) => e);
  t.ok(over instanceof OpenAI.BadRequestError);
  t.match((over as InstanceType<typeof OpenAI.APIError>).error, { type: 'invalid_request_error', code: 'context_length_exceeded', param: 'input' });
  t.equal((await o.responses.create({ model: 'm', input: 'x'.repeat(200) })).output_text, 'kept');
  t.same(small.requests.map((r) => [r.route, r.inputTokens, r.status]), [
    ['responses', 51, 400],
    ['responses', 50, 200],
  ]);
});
