/**
 * Per-tenant proxy settings (PROXY_TENANTS, issue 23): a tenant's own upstreams and
 * threshold, by the name its keys were created for; the others keep the server's.
 */
import t from 'tap'
import { createApiKey } from '../../../src/tenancy/api-keys.ts'
import { startFakeProvider } from '../../fakes/fake-llm-provider.ts'
import { buildTestApp } from '../../helpers/build.ts'
import { exchange, type Message } from '../../helpers/session-conversations.ts'

function longConversation(): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are a coding agent.' }]
  for (let i = 0; i < 10; i++) out.push(...exchange(i, { padding: 40 }))
  return out
}

t.test("a tenant's upstreams and threshold from PROXY_TENANTS; another tenant keeps the server's", async (t) => {
  const shared = await startFakeProvider()
  const own = await startFakeProvider({ apiKey: shared.apiKey })
  t.teardown(() => Promise.all([shared.close(), own.close()]))
  const { app } = await buildTestApp(t, {
    config: {
      UPSTREAM_OPENAI_URL: shared.openaiBaseURL,
      UPSTREAM_ANTHROPIC_URL: shared.anthropicBaseURL,
      PROXY_TENANTS: { acme: { upstreamOpenaiUrl: own.openaiBaseURL, upstreamAnthropicUrl: own.anthropicBaseURL, threshold: 2000 } },
    },
  })
  const acme = (await createApiKey(app.db, 'acme')).key
  const globex = (await createApiKey(app.db, 'globex')).key
  t.equal(await app.authOpenMode({ refresh: true }), false)
  const messages = longConversation()
  const send = (key: string, url: string, payload: Record<string, unknown>, extra: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${shared.apiKey}`, 'x-api-key': shared.apiKey, 'anthropic-version': '2023-06-01', 'x-compactd-key': key, ...extra }, payload })

  // acme: its own upstream, and its threshold (2,000 tokens) compacts this conversation.
  const a = await send(acme, '/v1/chat/completions', { model: 'gpt-4o', messages })
  t.equal(a.statusCode, 200)
  t.equal(own.requests.length, 1, "acme's request went to acme's upstream")
  t.equal(shared.requests.length, 0)
  t.equal(a.headers['x-compactd-compacted'], 'true', "compacted past acme's threshold")
  t.ok(Number(a.headers['x-compactd-tokens-after']) < 2000, `under it: ${a.headers['x-compactd-tokens-after']}`)
  // A request's own threshold still wins over the tenant's.
  const high = await send(acme, '/v1/chat/completions', { model: 'gpt-4o', messages }, { 'x-compactd-threshold': '100000', 'x-compactd-session': 'acme-high' })
  t.equal(high.headers['x-compactd-compacted'], 'false', 'x-compactd-threshold wins')
  // Anthropic's endpoint and the model list go to acme's Anthropic upstream too.
  const m = await send(acme, '/v1/messages', { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
  t.equal(m.statusCode, 200)
  t.equal(own.requests.length, 3)
  const models = await app.inject({ method: 'GET', url: '/v1/models', headers: { authorization: `Bearer ${shared.apiKey}`, 'x-compactd-key': acme } })
  t.equal(models.statusCode, 200)
  t.equal(shared.requests.length, 0, "nothing of acme's reached the server's upstream")

  // globex: the server's upstream and the model's threshold (128k): passed on untouched.
  const g = await send(globex, '/v1/chat/completions', { model: 'gpt-4o', messages })
  t.equal(g.statusCode, 200)
  t.equal(shared.requests.length, 1, "globex's request went to the server's upstream")
  t.equal(g.headers['x-compactd-compacted'], 'false', "under the model's threshold")
  t.equal(shared.lastRequest!.rawBody, JSON.stringify({ model: 'gpt-4o', messages }), 'byte for byte')
})
