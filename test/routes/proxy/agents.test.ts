/**
 * A real coding agent pointed at the proxy with one setting (issue 23): OpenAI's Codex CLI
 * with docs/integrations.md's `~/.codex/config.toml`, its base URL compactd's, the fake
 * provider upstream. Codex is a 400 MB download, so it is not a dependency: the test runs
 * when `codex` is installed (CODEX_BIN, or on the PATH; `.ci/run` installs it when it can)
 * and skips, saying so, when it is not. Claude Code is not run here: it is not open-source,
 * and not a dependency of this project; its requests are the Anthropic Messages API the
 * proxy's SDK tests cover.
 */
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { startFakeProvider } from '../../fakes/fake-llm-provider.ts'
import { buildTestApp } from '../../helpers/build.ts'

const codex = process.env.CODEX_BIN || spawnSync('which', ['codex'], { encoding: 'utf8' }).stdout?.trim() || undefined

t.test('Codex CLI through the proxy: `codex exec` with its base URL pointed at compactd', { skip: codex ? false : 'Codex is not installed (npm install -g @openai/codex, or CODEX_BIN=…; .ci/run installs it when it can)' }, async (t) => {
  const fake = await startFakeProvider()
  t.teardown(() => fake.close())
  const { app } = await buildTestApp(t, { config: { UPSTREAM_OPENAI_URL: fake.openaiBaseURL, UPSTREAM_ANTHROPIC_URL: fake.anthropicBaseURL } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as { port: number }).port
  // The page's config.toml, with this test's port (and a session header, as a user may add).
  const home = fs.mkdtempSync(path.join(os.homedir(), '.compactd-codex-test-'))
  t.teardown(() => fs.rmSync(home, { recursive: true, force: true }))
  fs.writeFileSync(
    path.join(home, 'config.toml'),
    [
      'model = "gpt-4o"',
      'model_provider = "compactd"',
      '',
      '[model_providers.compactd]',
      'name = "OpenAI through compactd"',
      `base_url = "http://127.0.0.1:${port}/v1"`,
      'env_key = "OPENAI_API_KEY"',
      'wire_api = "responses"',
      'http_headers = { "x-compactd-session" = "codex-agent" }',
      '',
    ].join('\n'),
  )
  const run = await new Promise<{ status: number | null; output: string }>((resolve) => {
    const child = spawn(codex!, ['exec', '--skip-git-repo-check', 'Say hi'], { cwd: home, env: { PATH: process.env.PATH!, HOME: os.homedir(), CODEX_HOME: home, OPENAI_API_KEY: fake.apiKey }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    const timer = setTimeout(() => child.kill(), 120_000)
    child.on('exit', (status) => (clearTimeout(timer), resolve({ status, output })))
  })
  t.equal(run.status, 0, `codex exec exited 0 (${run.output.slice(-300)})`)
  const responses = fake.requests.filter((r) => r.path === '/v1/responses')
  t.ok(responses.length >= 1, 'Codex called the Responses API through compactd')
  const first = responses[0]!
  t.equal(first.body.stream, true, 'streamed, as Codex asks')
  t.equal(first.headers.authorization, `Bearer ${fake.apiKey}`, "Codex's provider key passed on")
  t.equal(first.headers['x-compactd-session'], undefined, "compactd's own headers are not forwarded")
  const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body
  t.match(metrics, /compactd_proxy_requests_total\{endpoint="\/v1\/responses",outcome="passthrough"\} [1-9]/, 'counted as a proxied request')
})
