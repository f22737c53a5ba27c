import type { Probe } from '../core.ts'

const fixture = 'deepseek_lite_dev_noparallel__sqlfluff__sqlfluff-1733'

/**
 * sqlfluff 1733 (mini-SWE-agent, DeepSeek lite): `sqlfluff fix` gives the first select
 * target 9 spaces instead of 8 inside a CTE. Long unresolved debugging of L036 and L003,
 * many rejected patches, nothing fixed at the end. Test split: written from the session,
 * blind to compactd's output.
 */
export const probes: Probe[] = [
  { id: 't-sf1733-01', fixture, kind: 'recall', question: 'Which rule violation makes `sqlfluff fix` move my_id to its own line (its message)?', answers: ['Select targets should be on a new line'] },
  { id: 't-sf1733-02', fixture, kind: 'recall', question: 'Which warning does every full `sqlfluff fix` of the repro print?', answers: ['it would re-cause the same error'] },
  { id: 't-sf1733-03', fixture, kind: 'recall', facet: 'finding', question: 'Where in the linter is that warning emitted (function name)?', answers: ['_warn_unfixable'] },
  { id: 't-sf1733-04', fixture, kind: 'recall', facet: 'research', question: 'How many leading spaces does my_id get after the fix, against other_thing?', answers: [['Leading spaces: 9', '9 leading spaces', 'my_id: 9 spaces']] },
  { id: 't-sf1733-05', fixture, kind: 'recall', facet: 'research', question: 'Is the bug specific to WITH statements?', answers: [['not specific to WITH', 'any bracketed expression', 'test_parentheses.sql']] },
  { id: 't-sf1733-06', fixture, kind: 'recall', facet: 'research', question: 'What happens when L036 and L003 are applied one after the other instead of in one `fix` run?', answers: [['run L036 and then L003 separately', 'run L036 and L003 separately', 'When they run separately', 'run them separately'], ['same pass', 'one pass']] },
  { id: 't-sf1733-07', fixture, kind: 'decision', facet: 'rejected', question: 'Why does `sqlfluff fix` need -f in this environment?', answers: ["No such device or address: '/dev/tty'"] },
  { id: 't-sf1733-08', fixture, kind: 'recall', facet: 'finding', question: 'How does L036 build its fix for a select target on the SELECT line: does it insert any indentation?', answers: ['LintFix("create", select_target, NewlineSegment())'] },
  { id: 't-sf1733-09', fixture, kind: 'recall', facet: 'explanation', question: "Why can't L003 compare my_id's line with other_thing's line when it fixes the indent?", answers: [["hasn't been processed yet", 'comes after line 3', 'processes lines in order', "hasn't seen line 4"]] },
  { id: 't-sf1733-10', fixture, kind: 'decision', facet: 'rejected', question: 'The L036 rewrites that replaced select_children with a manual loop: which patches, and why were they reverted?', answers: [['fix_l036_final.patch', 'final_fix_v2.patch'], ['Still broken: 9 spaces', 'still 9 spaces', "The fix didn't work"]] },
  { id: 't-sf1733-11', fixture, kind: 'decision', facet: 'rejected', question: "Why did manual_fix.py's change to L003 (the indent_size == 0 case) make no difference?", answers: [['same indent balance', 'indent_diff == 0', 'wrong code path']] },
  { id: 't-sf1733-12', fixture, kind: 'decision', facet: 'rejected', question: 'Why did correct_fix_v2.patch break importing sqlfluff?', answers: ['Perhaps you forgot a comma'] },
  { id: 't-sf1733-13', fixture, kind: 'recall', facet: 'finding', question: 'Is the `elif this_indent_num < comp_indent_num` (under-indented) branch of L003 even reached for the repro? What did the debug logging show?', answers: [['No debug output', 'code path is not being executed']] },
  { id: 't-sf1733-14', fixture, kind: 'artifact', facet: 'repo-state', question: 'Which leftover file from a patch run sits untracked under src/ and must not be submitted?', answers: ['L036.py.orig'] },
  { id: 't-sf1733-15', fixture, kind: 'artifact', facet: 'repo-state', question: 'Which backup of L003.py was made before editing it in place?', answers: ['L003.py.backup'] },
  { id: 't-sf1733-16', fixture, kind: 'artifact', question: 'Which SQL file reproduces the report with the CTE?', answers: ['test_with_indent.sql'] },
  { id: 't-sf1733-17', fixture, kind: 'recall', facet: 'research', question: 'Which sqlfluff version is installed in the environment (not the 0.7.0 of the report)?', answers: [['sqlfluff==0.7.1', 'sqlfluff-0.7.1']] },
  { id: 't-sf1733-18', fixture, kind: 'recall', facet: 'finding', question: "Where are L036's YAML test cases, and which existing case covers a CTE?", answers: ['L036.yml', 'test_cte'] },
  { id: 't-sf1733-19', fixture, kind: 'recall', facet: 'finding', question: 'How many whitespace segments does L036 delete before my_id (per the patched debug run)?', answers: ['Whitespace to delete: 1 segments'] },
  { id: 't-sf1733-20', fixture, kind: 'recall', facet: 'research', question: 'What does L003 report when linting the output of L036 alone?', answers: ['Line under-indented compared to line #2'] },
  { id: 't-sf1733-21', fixture, kind: 'continuation', question: 'Which command reruns the original reproduction non-interactively?', answers: [['sqlfluff fix test_with_indent.sql --dialect ansi -f', '--dialect ansi -f']] },
]
