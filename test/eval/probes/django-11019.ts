import type { Probe } from './core.ts'

const fixture = 'deepseek_chat_test_1-100__django__django-11019'

/** Django 11019: merging 3+ Media objects throws unnecessary MediaOrderConflictWarnings. */
export const probes: Probe[] = [
  { id: 'django-01', fixture, kind: 'recall', question: 'Which module was missing when the reproduction script first ran?', answers: ["No module named 'pytz'"] },
  { id: 'django-02', fixture, kind: 'recall', question: 'Why could pytest not be used to run the media tests?', answers: ['No module named pytest'] },
  { id: 'django-03', fixture, kind: 'artifact', question: 'Which reproduction script was written for the issue?', answers: ['test_media_issue.py'] },
  { id: 'django-04', fixture, kind: 'artifact', question: 'Which runner script was written to run FormsMediaTestCase?', answers: ['run_test.py'] },
  { id: 'django-05', fixture, kind: 'decision', question: 'Which alternative merge algorithm was prototyped and not adopted?', answers: ['topological_merge'] },
  { id: 'django-06', fixture, kind: 'decision', question: 'Which prototype showed that moving the conflicting element works?', answers: [['merge_with_move', 'test_move_fix.py']] },
  { id: 'django-07', fixture, kind: 'recall', question: 'What did the first regex-based patch script report?', answers: ['Could not find old merge method'] },
  { id: 'django-08', fixture, kind: 'decision', question: 'Which backup was restored after the patch broke a string literal?', answers: ['widgets.py.backup'] },
  { id: 'django-09', fixture, kind: 'artifact', question: 'Which script changed the expectations of the existing merge-warning test?', answers: ['update_test.py'] },
  { id: 'django-10', fixture, kind: 'recall', question: 'Which media test still failed for an unrelated template reason?', answers: ['test_form_media'] },
  { id: 'django-11', fixture, kind: 'decision', question: 'Which existing CSS three-way test was examined to understand when merging does not warn?', answers: ['test_merge_css_three_way'] },
]
