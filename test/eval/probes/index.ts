/**
 * The hand-written continuation probes over the real sessions in ../shared/fixtures (one
 * module per session). Fixtures are read from ../shared (or COMPACTD_SHARED_FIXTURES,
 * test/helpers/fixtures.ts) and never copied here.
 *
 * Two splits (issue 22):
 * - TUNING (FIXTURE_PROBES, also exported as TUNING_PROBES): the probes the engine's rules
 *   were tuned on, one at a time, over 8 sessions;
 * - TEST (TEST_PROBES, test-split/): held-out probes over 5 other sessions, written before
 *   any issue-22 engine change and never used to tune one.
 */
import fs from 'node:fs'
import path from 'node:path'
import { CONVERSATIONS, conversationsSkip } from '../../helpers/fixtures.ts'
import type { Probe } from './core.ts'
import { probes as astroid } from './astroid-1333.ts'
import { probes as awesomeIde } from './awesome-agent-ide.ts'
import { probes as codex } from './codex-multimodal-review.ts'
import { probes as ctf } from './ctf-i-got-id.ts'
import { probes as django } from './django-11019.ts'
import { probes as gemini } from './gemini-agent-teams.ts'
import { probes as raddit } from './raddit-dashboard.ts'
import { probes as youtube } from './youtube-transcripts.ts'
import { TEST_PROBES } from './test-split/index.ts'

export * from './core.ts'

export const FIXTURE_PROBES: readonly Probe[] = [...ctf, ...astroid, ...raddit, ...gemini, ...codex, ...youtube, ...awesomeIde, ...django]

/** The tuning split: the same probes as FIXTURE_PROBES (kept under that name for compatibility). */
export const TUNING_PROBES: readonly Probe[] = FIXTURE_PROBES

/** The held-out test split (test-split/). */
export { TEST_PROBES }

/** Fixture names the probes use (file names without .json). */
export const PROBED_FIXTURES: readonly string[] = [...new Set(FIXTURE_PROBES.map((p) => p.fixture))]

/** Why the probed sessions cannot be read (what is missing), or false. */
export const probedFixturesSkip = (): string | false => conversationsSkip(PROBED_FIXTURES.map((f) => `${f}.json`))
export const fixturesAvailable = (): boolean => probedFixturesSkip() === false

/** The OpenAI messages of a fixture. */
export function loadFixture(name: string): unknown[] {
  return JSON.parse(fs.readFileSync(path.join(CONVERSATIONS, `${name}.json`), 'utf8')).messages
}

export function loadProbedFixtures(): Map<string, unknown[]> {
  return new Map(PROBED_FIXTURES.map((f) => [f, loadFixture(f)]))
}

/** Fixture names the test split uses. */
export const TEST_FIXTURES: readonly string[] = [...new Set(TEST_PROBES.map((p) => p.fixture))]

/** Why the test split's sessions cannot be read (what is missing), or false. */
export const testFixturesSkip = (): string | false => conversationsSkip(TEST_FIXTURES.map((f) => `${f}.json`))

export function loadTestFixtures(): Map<string, unknown[]> {
  return new Map(TEST_FIXTURES.map((f) => [f, loadFixture(f)]))
}
