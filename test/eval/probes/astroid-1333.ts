import type { Probe } from './core.ts'

const fixture = 'deepseek_chat_dev_rerun__pylint-dev__astroid-1333'

/** astroid 2.9.1 "Unable to load file __init__.py" for packages without __init__.py. */
export const probes: Probe[] = [
  { id: 'astroid-01', fixture, kind: 'recall', question: 'Why could astroid not even be imported at first in this environment?', answers: ['formatargspec', 'Python 3.11'] },
  { id: 'astroid-02', fixture, kind: 'artifact', question: 'How was the wrapt requirement in setup.cfg changed?', answers: ['wrapt>=1.11,<1.14', 'wrapt>=1.11,<3.0'] },
  { id: 'astroid-03', fixture, kind: 'recall', question: 'Which function raises the "Unable to load file" error, and in which file?', answers: ['file_build', 'builder.py'] },
  { id: 'astroid-04', fixture, kind: 'recall', question: 'Which spec.py function opens __init__.py and swallows OSError?', answers: ['_is_setuptools_namespace'] },
  { id: 'astroid-05', fixture, kind: 'decision', question: 'Which changelog commit was looked at and judged unrelated (distutils path patching)?', answers: [['51f552ce', '#1321']] },
  { id: 'astroid-06', fixture, kind: 'decision', question: 'Which upstream commit was identified as the fix for packages without __init__.py?', answers: ['5c565b72'] },
  { id: 'astroid-07', fixture, kind: 'decision', question: 'Which later commit (caching _has_init) was checked and ruled out?', answers: ['e43e0451'] },
  { id: 'astroid-08', fixture, kind: 'decision', question: 'After the syntax error in builder.py with no backup, how was the file restored?', answers: ['git checkout astroid/builder.py'] },
  { id: 'astroid-09', fixture, kind: 'artifact', question: 'Which helper script restricted _has_init to source files only?', answers: ['fix_has_init.py'] },
  { id: 'astroid-10', fixture, kind: 'recall', question: 'What error did ast_from_module_name give for src.project after the _has_init change?', answers: ["Can't find a file for module src.project"] },
  { id: 'astroid-11', fixture, kind: 'continuation', question: 'Which helper that checks __init__.py along the module path was the next suspect after modpath_from_file?', answers: ['check_modpath_has_init'] },
]
