import type { Probe } from '../core.ts'

const fixture = 'deepseek_reasoner_dev__sqlfluff__sqlfluff-1517'

/**
 * sqlfluff 1517 (mini-SWE-agent, DeepSeek reasoner; no assistant prose, only tool calls):
 * `select id from tbl;;` crashes with "Dropped elements in sequence matching". Fix in
 * Delimited.match, several scripted edits reverted for indentation errors. Test split:
 * written from the session, blind to compactd's output.
 */
export const probes: Probe[] = [
  { id: 't-sf1517-01', fixture, kind: 'recall', facet: 'research', question: 'What did the instrumented check_still_complete print for the top-level parse of `select id from tbl;;`?', answers: ['DEBUG: matched_segments: []', "DEBUG: unmatched_segments: [';']"] },
  { id: 't-sf1517-02', fixture, kind: 'recall', facet: 'finding', question: "How is the ANSI FileSegment's Delimited grammar configured (which flag makes a trailing delimiter legal)?", answers: ['allow_trailing=True'] },
  { id: 't-sf1517-03', fixture, kind: 'recall', facet: 'finding', question: 'Which branch of Delimited.match returns everything unmatched on the second semicolon?', answers: ['Zero length section between delimiters'] },
  { id: 't-sf1517-04', fixture, kind: 'recall', facet: 'finding', question: 'What is DelimiterSegment in ANSI, and which other dialect defines its own?', answers: [['DelimiterSegment=Ref("SemicolonSegment")', 'SemicolonSegment'], 'dialect_tsql.py'] },
  { id: 't-sf1517-05', fixture, kind: 'decision', facet: 'rejected', question: 'Why was fix.patch never applied?', answers: ['malformed patch at line 12'] },
  { id: 't-sf1517-06', fixture, kind: 'recall', facet: 'research', question: 'After the first fix, what does `select id from tbl;;;` report?', answers: ["Found unparsable section: ';;"] },
  { id: 't-sf1517-07', fixture, kind: 'recall', facet: 'research', question: 'Which case in test_edge.py still crashed after the zero-length fix, and with what?', answers: [["'select a; ; select b' != ' ; select b'", 'ERROR: select a; ; select b']] },
  { id: 't-sf1517-08', fixture, kind: 'decision', facet: 'rejected', question: 'Why were the insert_check.py / insert_zero_code.py / fix_zero_code.py edits of delimited.py reverted?', answers: ['IndentationError: unexpected indent'] },
  { id: 't-sf1517-09', fixture, kind: 'recall', facet: 'research', question: 'Once the after-trim check was in, what did `select a; ; select b` give?', answers: ['Position 10: Found unparsable section'] },
  { id: 't-sf1517-10', fixture, kind: 'recall', question: 'Which test paths the agent tried do not exist in this checkout?', answers: ['test/core/linter/', 'test/dialects/ansi/'] },
  { id: 't-sf1517-11', fixture, kind: 'artifact', facet: 'repo-state', question: 'Were the DEBUG prints in helpers.py removed, and how? Which backup of it is left on disk?', answers: ['git checkout src/sqlfluff/core/parser/helpers.py', 'helpers.py.backup'] },
  { id: 't-sf1517-12', fixture, kind: 'artifact', facet: 'repo-state', question: 'What does the working-tree diff of delimited.py hold at the end (both hunks)?', answers: ['If after trimming there are no code segments', 'if len(matched_segments.matched_segments) > 0 and self.allow_trailing'] },
  { id: 't-sf1517-13', fixture, kind: 'decision', facet: 'explanation', question: 'What rule does the fix apply to an empty section between two delimiters?', answers: [['treat this delimiter as a trailing delimiter', 'If we already have matched at least one element and allow_trailing is True']] },
  { id: 't-sf1517-14', fixture, kind: 'artifact', question: 'Which script reproduces the parse crash through the Python API?', answers: ['debug_parse.py'] },
  { id: 't-sf1517-15', fixture, kind: 'recall', question: 'Which Python runs the tests in this environment?', answers: ['Python 3.11.5'] },
]
