/**
 * Generated conversations for issue 22's findings (src/engine/facts/findings/): sessions
 * where what matters is what the agent LEARNED, not only what it touched. Each builder is
 * deterministic, returns OpenAI chat messages, and takes the tool dialect it is written
 * in (OpenAI function names, Claude Code's, Codex's), so a rule is tested on the class of
 * conversation and not on one agent's wording:
 *
 *   codeInvestigation(dialect)  reads and greps; the agent states how the code behaves
 *                               (which backends share a pattern, how a function guards a
 *                               case), then reuses the identifiers in an edit
 *   researchSession(dialect)    web searches and pages; the agent computes a ranking with
 *                               weighted scores (a markdown table) and a fact-check's
 *                               old → new corrections (a list)
 *   debuggingSession(dialect)   the agent explains why one case fails and a similar one
 *                               does not, resting on a line of a log it read
 *   historyInvestigation(dialect)  the agent keeps coming back to one commit a `git log`
 *                               listed (shows it, weighs it, applies its change), and
 *                               names another, from a later output, once at the end
 *
 * Each comes with its facts (`learned`): strings the handover must carry, and `musings`:
 * sentences it must not present as findings.
 */
import { prose } from './prose.ts'

export type Dialect = 'openai' | 'claude-code' | 'codex'
export const DIALECTS: readonly Dialect[] = ['openai', 'claude-code', 'codex']

type Msg = { role: 'system' | 'user'; content: string } | { role: 'assistant'; content: string | null; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] } | { role: 'tool'; tool_call_id: string; content: string }

interface Tools {
  read: (file: string) => [string, unknown]
  run: (command: string) => [string, unknown]
  grep: (pattern: string, dir: string) => [string, unknown]
  edit: (file: string, oldText: string, newText: string) => [string, unknown]
  search: (query: string) => [string, unknown]
  fetch: (url: string) => [string, unknown]
}

const TOOLS: Record<Dialect, Tools> = {
  openai: {
    read: (file) => ['read_file', { path: file }],
    run: (command) => ['bash', { command }],
    grep: (pattern, dir) => ['bash', { command: `rg -n "${pattern}" ${dir}` }],
    edit: (file, old_str, new_str) => ['str_replace_editor', { command: 'str_replace', path: file, old_str, new_str }],
    search: (query) => ['web_search', { query }],
    fetch: (url) => ['web_fetch', { url }],
  },
  'claude-code': {
    read: (file) => ['Read', { file_path: file }],
    run: (command) => ['Bash', { command, description: 'Run' }],
    grep: (pattern, path) => ['Grep', { pattern, path, output_mode: 'content', '-n': true }],
    edit: (file_path, old_string, new_string) => ['Edit', { file_path, old_string, new_string }],
    search: (query) => ['WebSearch', { query }],
    fetch: (url) => ['WebFetch', { url, prompt: 'Extract the facts' }],
  },
  codex: {
    read: (file) => ['shell', { command: ['bash', '-lc', `sed -n '1,200p' ${file}`] }],
    run: (command) => ['shell', { command: ['bash', '-lc', command] }],
    grep: (pattern, dir) => ['shell', { command: ['bash', '-lc', `rg -n "${pattern}" ${dir}`] }],
    edit: (file, old, neu) => ['apply_patch', { input: `*** Begin Patch\n*** Update File: ${file}\n@@\n-${old}\n+${neu}\n*** End Patch` }],
    search: (query) => ['shell', { command: ['bash', '-lc', `curl -s "https://search.example/api?q=${encodeURIComponent(query)}"`] }],
    fetch: (url) => ['shell', { command: ['bash', '-lc', `curl -sL ${url}`] }],
  },
}

class Builder {
  readonly messages: Msg[] = []
  private n = 0
  constructor(
    private readonly prefix: string,
    readonly tools: Tools,
  ) {}
  system(content: string) {
    this.messages.push({ role: 'system', content })
  }
  user(content: string) {
    this.messages.push({ role: 'user', content })
  }
  say(content: string) {
    this.messages.push({ role: 'assistant', content })
  }
  call([name, args]: [string, unknown], result: string, text: string | null = null) {
    const id = `call_${this.prefix}_${++this.n}`
    this.messages.push({ role: 'assistant', content: text, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] })
    this.messages.push({ role: 'tool', tool_call_id: id, content: result })
  }
  /** Reads of unrelated files: bulk, so that a 10% budget is reachable and the findings compete for room. */
  explore(files: readonly string[], seed: number) {
    files.forEach((file, i) => {
      const lines = Array.from({ length: 90 }, (_, k) => `${String(k + 1).padStart(4)}  ${prose(48, seed * 31 + i * 7 + k)}`)
      this.call(this.tools.read(file), lines.join('\n'), `Reading ${file.split('/').pop()} for context.`)
    })
  }
}

export interface FindingsConversation {
  name: string
  dialect: Dialect
  messages: Msg[]
  /** Strings the handover must carry: what was learned. */
  learned: string[]
  /** Sentences the agent only mused: never under Findings. */
  musings: string[]
}

const BULK = ['src/util/strings.py', 'src/util/paths.py', 'src/cli/main.py', 'src/cli/args.py', 'src/log/setup.py', 'src/log/format.py', 'docs/conf.py', 'setup.py', 'src/util/retry.py', 'src/util/clock.py']

/**
 * Code investigation: one rg lists the backends that convert datetimes, a read shows how
 * the base class guards naive values, the agent states both, then edits with the names.
 */
export function codeInvestigation(dialect: Dialect): FindingsConversation {
  const c = new Builder('ci', TOOLS[dialect])
  c.system('You are a coding agent. Use the tools to investigate and change the repository.')
  c.user('Datetimes lose their timezone on some database backends of our ORM. Find out where the conversion happens and make every backend keep tzinfo.')
  c.explore(BULK.slice(0, 5), 3)
  c.call(
    c.tools.grep('def adapt_datetimefield_value', 'src/orm/backends'),
    [
      'src/orm/backends/base/operations.py:501:    def adapt_datetimefield_value(self, value):',
      'src/orm/backends/mysql/operations.py:212:    def adapt_datetimefield_value(self, value):',
      'src/orm/backends/mysql/operations.py:219:        value = timezone.make_naive(value, self.connection.timezone)',
      'src/orm/backends/oracle/operations.py:488:    def adapt_datetimefield_value(self, value):',
      'src/orm/backends/oracle/operations.py:497:        value = timezone.make_naive(value, self.connection.timezone)',
      'src/orm/backends/sqlite3/operations.py:240:    def adapt_datetimefield_value(self, value):',
      'src/orm/backends/sqlite3/operations.py:248:        value = timezone.make_naive(value, self.connection.timezone)',
    ].join('\n'),
    'Let me check which backends override the datetime adapter.',
  )
  c.say('Maybe the conversion also happens in the cursor wrapper? Let me check.')
  c.call(
    c.tools.read('src/orm/backends/base/operations.py'),
    [
      '  498  ',
      '  499      # Adapting datetimes for the database',
      '  500  ',
      '  501      def adapt_datetimefield_value(self, value):',
      '  502          if value is None or hasattr(value, "resolve_expression"):',
      '  503              return value',
      '  504          if settings.USE_TZ_PASSTHROUGH:',
      '  505              return value.isoformat()',
      '  506          return str(value)',
    ].join('\n'),
    'Reading the base implementation.',
  )
  c.say(
    'Found 3 backends that call `timezone.make_naive` in `adapt_datetimefield_value`: mysql, oracle and sqlite3; the base class only returns `value.isoformat()` when `settings.USE_TZ_PASSTHROUGH` is set. The base implementation guards `None` and expressions with `hasattr(value, "resolve_expression")` before any conversion.',
  )
  c.explore(BULK.slice(5), 5)
  for (const backend of ['mysql', 'oracle', 'sqlite3']) {
    c.call(
      c.tools.edit(`src/orm/backends/${backend}/operations.py`, 'value = timezone.make_naive(value, self.connection.timezone)', 'if not settings.USE_TZ_PASSTHROUGH:\n            value = timezone.make_naive(value, self.connection.timezone)'),
      `The file src/orm/backends/${backend}/operations.py has been updated.`,
      `Guarding make_naive with settings.USE_TZ_PASSTHROUGH in the ${backend} backend.`,
    )
  }
  c.call(c.tools.run('python -m pytest tests/backends -q'), `${prose(300, 9)}\n42 passed in 3.10s`, 'Running the backend tests.')
  c.user('Good. Now add a changelog entry.')
  c.say('Adding it.')
  return {
    name: `codeInvestigation/${dialect}`,
    dialect,
    messages: c.messages,
    learned: ['Found 3 backends', 'timezone.make_naive', 'sqlite3'],
    musings: ['Maybe the conversion also happens in the cursor wrapper'],
  }
}

/**
 * Research: searches and pages with stars and prices, then the agent's weighted ranking
 * (a markdown table) and the fact-check's corrections (an old → new list).
 */
export function researchSession(dialect: Dialect): FindingsConversation {
  const c = new Builder('rs', TOOLS[dialect])
  c.system('You are a research agent. Use the tools to find facts and cite them.')
  c.user('Compare the open-source task queues for our Python service (stars, license, price of the hosted tier) and rank them with weights: popularity 40%, license 30%, hosted price 30%.')
  const pages: [string, string][] = [
    ['https://github.com/celery/celery', 'Celery: Distributed Task Queue\nStars: 24,800 · Forks: 4,600\nLicense: BSD-3-Clause\nHosted tier: none (self-hosted only)'],
    ['https://github.com/rq/rq', 'RQ (Redis Queue)\nStars: 9,700 · Forks: 1,400\nLicense: BSD-2-Clause\nHosted tier: none'],
    ['https://github.com/Bogdanp/dramatiq', 'Dramatiq\nStars: 4,300 · Forks: 310\nLicense: LGPL-3.0\nHosted tier: none'],
    ['https://hatchet.run/pricing', 'Hatchet pricing\nDeveloper: $0/mo\nTeam: $150/mo (2M task runs)\nStars on GitHub: 5,100 · License: MIT'],
  ]
  c.call(c.tools.search('python task queue open source comparison 2026'), pages.map(([url, text]) => `${url}\n${text.split('\n')[0]}`).join('\n\n'), 'Searching for candidates.')
  for (const [url, text] of pages) c.call(c.tools.fetch(url), `${text}\n${prose(400, url.length)}`, `Reading ${url}.`)
  c.explore(BULK.slice(0, 5), 11)
  c.say(
    [
      'Scores are computed with the weights you gave (popularity 40%, license 30%, hosted price 30%):',
      '',
      '| Rank | Queue | Stars | License | Hosted | Score |',
      '|---|---|---|---|---|---|',
      '| 1 | Celery | 24,800 | BSD-3-Clause | none | 8.7 |',
      '| 2 | Hatchet | 5,100 | MIT | $150/mo | 7.9 |',
      '| 3 | RQ | 9,700 | BSD-2-Clause | none | 7.4 |',
      '| 4 | Dramatiq | 4,300 | LGPL-3.0 | none | 6.1 |',
      '',
      'Let me double-check the figures against the repositories.',
    ].join('\n'),
  )
  c.call(c.tools.fetch('https://github.com/rq/rq/blob/master/LICENSE'), `BSD 2-Clause License\n${prose(200, 5)}`, 'Checking the RQ license.')
  c.call(c.tools.fetch('https://hatchet.run/pricing'), 'Hatchet pricing (updated)\nDeveloper: $0/mo\nTeam: $180/mo (2M task runs)', 'Checking the Hatchet price again.')
  c.say(['Fact-check corrections:', '- Hatchet Team tier: $150/mo → $180/mo', '- Dramatiq stars: 4,300 → 4,450', '- RQ license: BSD-2-Clause (confirmed, unchanged)'].join('\n'))
  c.explore(BULK.slice(5), 13)
  c.user('Write the comparison to docs/queues.md.')
  c.say('Writing it now.')
  return {
    name: `researchSession/${dialect}`,
    dialect,
    messages: c.messages,
    learned: ['Celery', '8.7', 'Hatchet', '7.9', 'RQ', '7.4', 'Dramatiq', '6.1', '$150/mo → $180/mo', '4,300 → 4,450'],
    musings: ['Let me double-check the figures'],
  }
}

/**
 * Debugging: a date parser rejects 2024-02-30 but accepts 2023-02-29 in one code path;
 * the agent reads the log, explains why one case fails and the similar one does not,
 * and fixes it.
 */
export function debuggingSession(dialect: Dialect): FindingsConversation {
  const c = new Builder('dbg', TOOLS[dialect])
  c.system('You are a coding agent. Use the tools to debug and fix the repository.')
  c.user('The import job rejects some dates and silently accepts others that are just as invalid. Find out why and fix it.')
  c.explore(BULK.slice(0, 5), 17)
  c.call(
    c.tools.run('python -m importer.run --file samples/dates.csv --verbose'),
    [
      'INFO  reading samples/dates.csv (4 rows)',
      'INFO  row 1: 2024-02-28 -> ok',
      'ERROR row 2: 2024-02-30 -> ValueError from strict_parse_date: day is out of range for month',
      'INFO  row 3: 2023-02-29 -> ok via lenient_parse_date (fallback_for_legacy_rows)',
      'INFO  row 4: 2024-03-01 -> ok',
    ].join('\n'),
    'Running the importer on the sample file.',
  )
  c.call(
    c.tools.read('src/importer/dates.py'),
    ['  10  def parse_row_date(text, legacy):', '  11      if legacy:', '  12          return lenient_parse_date(text)', '  13      return strict_parse_date(text)', '  40  def lenient_parse_date(text):', '  41      y, m, d = map(int, text.split("-"))', '  42      return date(y, m, min(d, 28))'].join('\n'),
    'Reading the date parsing.',
  )
  c.say(
    'Row 2 fails because `strict_parse_date` raises `ValueError` for 2024-02-30, whereas row 3 (2023-02-29) goes through `lenient_parse_date`, which clamps the day with `min(d, 28)` when `fallback_for_legacy_rows` marks the row as legacy. So the difference comes from the `legacy` flag, not from the dates.',
  )
  c.say('I think we might want to drop the legacy path entirely?')
  c.explore(BULK.slice(5), 19)
  c.call(c.tools.edit('src/importer/dates.py', '    return date(y, m, min(d, 28))', '    return strict_parse_date(text)'), 'The file src/importer/dates.py has been updated.', 'Making lenient_parse_date as strict as strict_parse_date.')
  c.call(c.tools.run('python -m pytest tests/test_dates.py -q'), `${prose(200, 23)}\n12 passed in 0.40s`, 'Running the date tests.')
  c.user('Thanks. Please also log rejected rows to rejected.csv.')
  c.say('Will do.')
  return {
    name: `debuggingSession/${dialect}`,
    dialect,
    messages: c.messages,
    learned: ['strict_parse_date', 'whereas', 'lenient_parse_date', 'min(d, 28)'],
    musings: ['drop the legacy path entirely'],
  }
}

/**
 * History investigation: a `git log` lists the upstream fix, the agent comes back to that
 * commit in message after message, and near the end names a commit from another log once,
 * in passing. The commit it kept returning to is the finding that matters more.
 */
export function historyInvestigation(dialect: Dialect): FindingsConversation {
  const c = new Builder('hi', TOOLS[dialect])
  c.system('You are a coding agent. Use the tools to investigate and change the repository.')
  c.user('Packages without an __init__.py are not found any more since 2.9.1. Find out what changed and fix it.')
  c.call(
    c.tools.run('git log --oneline --grep="__init__"'),
    ['0268b762 Fix sorting in imports', '5c565b72 Fix finding packages without an __init__.py (#1333)', '58706b54 Fix F403 wildcard import used in the package init'].join('\n'),
    'Searching the history for the regression.',
  )
  c.explore(BULK.slice(0, 3), 29)
  c.call(c.tools.run('git show 5c565b72 --stat'), 'modutils.py | 12 ++++++------\n1 file changed', 'Let me look at `5c565b72`.')
  c.say('The change in `5c565b72` touches only how the search path is checked.')
  c.explore(BULK.slice(3, 6), 31)
  c.say('Our checkout does not contain `5c565b72` yet, so the regression is still here.')
  c.explore(BULK.slice(6, 8), 37)
  c.call(c.tools.edit('src/modutils.py', 'paths_to_check = sys.path', 'paths_to_check = sys.path.copy()  # as in 5c565b72'), 'The file src/modutils.py has been updated.', 'Applying the change of `5c565b72` by hand.')
  c.say('Applied the path check of `5c565b72`; the package is found again.')
  c.call(c.tools.run('git log --oneline -3 -- src/cache.py'), ['a99967e0 Require build class parent', 'e43e0451 Cache the init lookups to avoid repeated stats', '4a8827d7 Adjust is_namespace to check the loader'].join('\n'), 'Checking the cache history too.')
  c.explore(BULK.slice(8), 41)
  c.say('`e43e0451` only caches the lookups: not related.')
  c.user('Good. Now add a changelog entry.')
  c.say('Adding it.')
  return { name: `historyInvestigation/${dialect}`, dialect, messages: c.messages, learned: ['5c565b72'], musings: [] }
}

/**
 * A session that reads web pages and follows their links (a web challenge, scraping, docs
 * research): what a page listed is in its markup, `<a href="/cgi-bin/hello.pl">Hello
 * World</a>`, and the agent reuses the link's target in its next fetches. The finding is
 * the link's text and target, not the tags around them.
 */
export function linkFollowingSession(dialect: Dialect): FindingsConversation {
  const c = new Builder('lf', TOOLS[dialect])
  c.system('You are a security agent. Use the tools to explore the target and report what you find.')
  c.user('Explore the web server at http://target.test:8000 and find how to read files on it.')
  const index = ['<html><head><title>Perl Examples</title></head><body>', '<h1>Perl Examples</h1>', '<ul>', '<li><a href="/cgi-bin/hello.pl">Hello World</a></li>', '<li><a href="/cgi-bin/forms.pl">Forms</a></li>', '<li><a href="/cgi-bin/upload.pl">File Upload</a></li>', '</ul>', '</body></html>'].join('\n')
  c.call(c.tools.fetch('http://target.test:8000/'), index, 'Fetching the index page.')
  c.explore(BULK.slice(0, 3), 43)
  c.call(c.tools.fetch('http://target.test:8000/cgi-bin/upload.pl'), '<html><body><form method="post" enctype="multipart/form-data"><input type="file" name="file"/></form></body></html>', 'Opening /cgi-bin/upload.pl.')
  c.say('The page /cgi-bin/upload.pl takes a file upload; /cgi-bin/forms.pl only echoes its fields.')
  c.explore(BULK.slice(3, 6), 47)
  c.call(c.tools.fetch('http://target.test:8000/cgi-bin/forms.pl'), '<html><body><form><input name="name"/><input name="age"/></form></body></html>', 'Checking /cgi-bin/forms.pl again.')
  c.say('Next: send two values for `file` to /cgi-bin/upload.pl.')
  return { name: `linkFollowingSession/${dialect}`, dialect, messages: c.messages, learned: ['/cgi-bin/upload.pl'], musings: [] }
}

export function findingsConversations(): FindingsConversation[] {
  return DIALECTS.flatMap((d) => [codeInvestigation(d), researchSession(d), debuggingSession(d), historyInvestigation(d), linkFollowingSession(d)])
}
