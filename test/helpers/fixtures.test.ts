/**
 * The skip reasons of the tests that read the shared fixtures (test/helpers/fixtures.ts) say
 * what is missing: the folder (the path looked at, and COMPACTD_SHARED_FIXTURES), or, the
 * folder being there, the file or kind of session not in it; never that an existing folder is
 * absent.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import {
  conversationKindSkip,
  conversationsSkip,
  FIXTURES_ENV,
  fixtureFiles,
  fixturesFolderSkip,
  LOCATION,
  locateFixtures,
  REPO_ROOT,
  transcriptsSkip,
  type FixturesLocation,
} from './fixtures.ts'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-fixtures-'))
t.teardown(() => fs.rmSync(tmp, { recursive: true, force: true }))
const env = (root: string): FixturesLocation => locateFixtures({ [FIXTURES_ENV]: root })
/** Every reason given for a folder that exists. */
const neverAbsent = (t: Test, reason: string | false) => t.notMatch(String(reason), /does not exist|not found|absent/, 'no claim that an existing folder is absent')

t.test('the location: ../shared/fixtures from the repository root, or COMPACTD_SHARED_FIXTURES', async (t) => {
  t.same(locateFixtures({}), { root: path.resolve(REPO_ROOT, '../shared/fixtures'), from: 'default' })
  t.same(locateFixtures({ [FIXTURES_ENV]: '  ' }), locateFixtures({}), 'blank is unset')
  t.same(env(tmp), { root: tmp, from: 'env' })
  t.same(env('some/where'), { root: path.resolve('some/where'), from: 'env' }, 'relative to the working directory')
  t.equal(LOCATION.root, process.env[FIXTURES_ENV]?.trim() ? path.resolve(process.env[FIXTURES_ENV]!.trim()) : path.resolve(REPO_ROOT, '../shared/fixtures'))
})

t.test('a missing folder: the path looked at, and how to point COMPACTD_SHARED_FIXTURES at one', async (t) => {
  const missing = path.join(tmp, 'no-such-fixtures')
  const viaEnv = env(missing)
  const reason = `${FIXTURES_ENV}=${missing} does not exist: set ${FIXTURES_ENV} to the path of the shared fixtures folder (the one with conversations/ and transcripts/), or unset it to use ../shared/fixtures from the repository root`
  t.equal(fixturesFolderSkip(viaEnv), reason)
  t.equal(conversationsSkip([], viaEnv), reason, 'conversations: the folder is what is missing')
  t.equal(conversationsSkip(['x.json'], viaEnv), reason)
  t.equal(transcriptsSkip(['pi-agent/'], viaEnv), reason, 'transcripts: the same')
  t.equal(conversationKindSkip('pi session', false, viaEnv), reason, 'a kind of session: the same')

  const byDefault: FixturesLocation = { root: missing, from: 'default' }
  t.equal(
    conversationsSkip([], byDefault),
    `the shared fixtures folder ${missing} (../shared/fixtures from the repository root) does not exist: put the real agent sessions there, or set ${FIXTURES_ENV} to the path of a fixtures folder (the one with conversations/ and transcripts/)`,
  )

  const file = path.join(tmp, 'a-file')
  fs.writeFileSync(file, '')
  t.match(fixturesFolderSkip(env(file)), `${FIXTURES_ENV}=${file} is not a folder`)
})

t.test('an existing folder without what a test needs: that file or kind of session, in that folder', async (t) => {
  const root = path.join(tmp, 'fixtures')
  fs.mkdirSync(root)
  const loc = env(root)
  const conversations = path.join(root, 'conversations')
  const transcripts = path.join(root, 'transcripts')
  t.equal(fixturesFolderSkip(loc), false)
  t.equal(conversationsSkip([], loc), `${root} exists but has no conversations/ folder`)
  t.equal(transcriptsSkip([], loc), `${root} exists but has no transcripts/ folder`)

  fs.mkdirSync(conversations)
  t.equal(conversationsSkip([], loc), `${conversations} exists but has no .json conversation`)
  t.equal(conversationKindSkip('pi session', false, loc), `${conversations} exists but has no .json conversation`)
  fs.writeFileSync(path.join(conversations, 'a.json'), '{"messages":[]}')
  t.equal(conversationsSkip([], loc), false)
  t.same(fixtureFiles(loc), ['a.json'])
  t.equal(conversationsSkip(['a.json'], loc), false)
  const django = 'deepseek_chat_test_1-100__django__django-11019.json'
  t.equal(conversationsSkip([django], loc), `${conversations} exists but has no ${django}`)
  t.equal(conversationsSkip(['a.json', 'b.json', 'c.json'], loc), `${conversations} exists but has no b.json, c.json`, 'only the missing ones')
  t.equal(conversationKindSkip('pi session (with ISO timestamps)', false, loc), `${conversations} exists but has no pi session (with ISO timestamps)`)
  t.equal(conversationKindSkip('pi session', true, loc), false)

  fs.mkdirSync(path.join(transcripts, 'pi-agent'), { recursive: true })
  t.equal(transcriptsSkip([], loc), false)
  t.equal(transcriptsSkip(['pi-agent/'], loc), `${transcripts} exists but its pi-agent/ is empty`)
  t.equal(transcriptsSkip(['pi-agent/', 'aider/'], loc), `${transcripts} exists but has no aider/ folder and its pi-agent/ is empty`)
  fs.writeFileSync(path.join(transcripts, 'pi-agent', 'one.jsonl'), '')
  t.equal(transcriptsSkip(['pi-agent/', 'pi-agent/one.jsonl'], loc), false)
  t.equal(transcriptsSkip(['pi-agent/two.jsonl'], loc), `${transcripts} exists but has no pi-agent/two.jsonl`)

  for (const reason of [
    conversationsSkip([django], loc),
    conversationKindSkip('pi session', false, loc),
    transcriptsSkip(['pi-agent/', 'aider/'], loc),
    transcriptsSkip(['pi-agent/two.jsonl'], loc),
  ]) neverAbsent(t, reason)
})

t.test('the real fixtures, when present: nothing the tests name is missing', { skip: fixturesFolderSkip() }, async (t) => {
  t.equal(conversationsSkip(), false)
  t.equal(conversationsSkip(['deepseek_chat_test_1-100__django__django-11019.json', 'google-gemini__gemini-cli__trajectory.json']), false)
  t.equal(transcriptsSkip(['pi-agent/', 'aider/', 'pi-agent/pinion05__agent-complex-task__03-raddit-dashboard-pr.jsonl']), false)
  const absent = conversationsSkip(['no-such-session.json'])
  t.equal(absent, `${path.join(LOCATION.root, 'conversations')} exists but has no no-such-session.json`)
  neverAbsent(t, absent)
})

t.test('COMPACTD_SHARED_FIXTURES is what a test process reads', async (t) => {
  const missing = path.join(tmp, 'elsewhere')
  const script = `const f = await import(${JSON.stringify(path.join(REPO_ROOT, 'test/helpers/fixtures.ts'))}); console.log(JSON.stringify([f.SHARED, f.CONVERSATIONS, f.conversationsSkip()]))`
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO_ROOT, env: { ...process.env, [FIXTURES_ENV]: missing } }).toString()
  const [shared, conversations, reason] = JSON.parse(out) as [string, string, string]
  t.equal(shared, missing)
  t.equal(conversations, path.join(missing, 'conversations'))
  t.match(reason, `${FIXTURES_ENV}=${missing} does not exist`)
})
