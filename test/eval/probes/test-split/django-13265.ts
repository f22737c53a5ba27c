import type { Probe } from '../core.ts'

const fixture = 'deepseek_chat_test_1-100__django__django-13265'

/**
 * Django 13265 (mini-SWE-agent, DeepSeek chat): AlterOrderWithRespectTo must come before an
 * AddIndex on `_order`. Long exploration of the autodetector, many abandoned patch attempts,
 * final fix defers `_order` indexes in generate_created_models only. Test split: written
 * from the session, blind to compactd's output.
 */
export const probes: Probe[] = [
  { id: 't-dj13265-01', fixture, kind: 'recall', facet: 'finding', question: 'AddIndex and IndexOperation define no references_field of their own: what does the inherited Operation.references_field do?', answers: [['references_model(model_name, app_label)', 'returns `True` if the operation references the model']] },
  { id: 't-dj13265-02', fixture, kind: 'recall', facet: 'explanation', question: 'For a model that already exists, why do AddIndex operations come out before AlterOrderWithRespectTo? Which generator runs last?', answers: ['generate_altered_order_with_respect_to'] },
  { id: 't-dj13265-03', fixture, kind: 'recall', facet: 'research', question: 'Is `_order` a field of the ModelState when order_with_respect_to is set? What did test_order_field.py print?', answers: [["Model fields: ['id', 'parent']", '_order` field is not in the model state', 'not in the model state fields']] },
  { id: 't-dj13265-04', fixture, kind: 'decision', facet: 'rejected', question: 'Why was the django.db.backends.dummy engine dropped from the reproduction settings?', answers: ["isn't an available database backend"] },
  { id: 't-dj13265-05', fixture, kind: 'decision', facet: 'rejected', question: 'Why was the first reproduction script (reproduce_issue.py, with real model classes) abandoned?', answers: ["No module named 'reproduce_app'"] },
  { id: 't-dj13265-06', fixture, kind: 'recall', facet: 'finding', question: 'What does ModelState require of the indexes passed to it (the error the unnamed-index script hit)?', answers: ['require a name attribute'] },
  { id: 't-dj13265-07', fixture, kind: 'recall', question: 'Which packages were missing from the environment and had to be pip-installed before Django imported?', answers: ['asgiref', 'sqlparse', 'pytz'] },
  { id: 't-dj13265-08', fixture, kind: 'recall', facet: 'research', question: 'Does the ordering bug also occur when an existing model gains order_with_respect_to and an `_order` index in the same migration?', answers: [['issue also occurs', 'both cases have the same issue', 'also occurs when adding']] },
  { id: 't-dj13265-09', fixture, kind: 'decision', facet: 'rejected', question: 'The final_fix.patch covering both generate methods was never applied: what did patch say?', answers: ['malformed patch at line 39'] },
  { id: 't-dj13265-10', fixture, kind: 'decision', facet: 'rejected', question: 'minimal_fix.patch reported a hunk succeeding with fuzz. Did the change actually land in autodetector.py?', answers: [['malformed patch at line 58', "The patch didn't apply"]] },
  { id: 't-dj13265-11', fixture, kind: 'decision', facet: 'rejected', question: 'Why was the sed-based edit of autodetector.py (self._indexes_with_order) thrown away?', answers: ['SyntaxError: invalid syntax'] },
  { id: 't-dj13265-12', fixture, kind: 'decision', facet: 'rejected', question: 'What was wrong with the generated autodetector.py.simple_fix / fixed_final versions when tested?', answers: [['index with `_order` is still not being added', 'is not being added at all', 'index with `_order` is missing']] },
  { id: 't-dj13265-13', fixture, kind: 'decision', facet: 'rejected', question: 'Why was the first separating patch, which stashed the `_order` indexes on the autodetector instance, replaced?', answers: [['instance attribute', 'local variable']] },
  { id: 't-dj13265-14', fixture, kind: 'decision', facet: 'explanation', question: 'Should an index on `_order` still be emitted when the model has no order_with_respect_to, and why?', answers: [["user's error", 'user error']] },
  { id: 't-dj13265-15', fixture, kind: 'artifact', facet: 'repo-state', question: 'Which pristine copy is autodetector.py restored from before each new attempt?', answers: ['autodetector.py.original'] },
  { id: 't-dj13265-16', fixture, kind: 'artifact', facet: 'repo-state', question: 'Which generated file was copied over autodetector.py as the version now in the tree, and which script produced it?', answers: ['autodetector.py.final_fix', 'create_final_fix.py'] },
  { id: 't-dj13265-17', fixture, kind: 'artifact', facet: 'repo-state', question: 'Which stray copies of autodetector.py are left in django/db/migrations and must stay out of the patch?', answers: ['autodetector.py.backup2', 'autodetector.py.bak'] },
  { id: 't-dj13265-18', fixture, kind: 'recall', facet: 'research', question: 'With the final fix, in what order does the autodetector emit operations for a child with an index on parent and one on (parent, _order)?', answers: [["5. AddIndex - fields: ['parent', '_order']", 'AlterOrderWithRespectTo` comes before `AddIndex` with `_order`']] },
  { id: 't-dj13265-19', fixture, kind: 'continuation', question: "What has to be solved before Django's own migration tests can be run here?", answers: ['No module named pytest', 'ImproperlyConfigured'] },
  { id: 't-dj13265-20', fixture, kind: 'recall', facet: 'finding', question: 'Which dependencies does generate_created_models give the AlterOrderWithRespectTo operation?', answers: ['(app_label, model_name, order_with_respect_to, True)'] },
  { id: 't-dj13265-21', fixture, kind: 'recall', facet: 'research', question: 'Which Django version wrote the migration generated by create_migration_test.py?', answers: ['Generated by Django 3.2'] },
]
