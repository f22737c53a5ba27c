import type { Probe } from '../core.ts'

const fixture = 'function_calling_replace_from_source__marshmallow-code__marshmallow-1867'

/**
 * marshmallow 1867 (SWE-agent, function calling): TimeDelta serialization rounds 345 ms
 * down to 344. Short session; its compacted range is the setup before the fix, and only
 * the 25% budget is reachable (10% answers 422). Test split: written from the session,
 * blind to compactd's output.
 */
export const probes: Probe[] = [
  { id: 't-mm1867-01', fixture, kind: 'recall', facet: 'research', question: 'Which marshmallow version is installed in the environment?', answers: [['marshmallow==3.13.0', 'marshmallow-3.13.0']] },
  { id: 't-mm1867-02', fixture, kind: 'artifact', question: 'How was the package installed for the reproduction?', answers: ['pip install -e .[dev]'] },
  { id: 't-mm1867-03', fixture, kind: 'recall', question: 'Which Python version does the testbed environment run?', answers: ['python3.9'] },
  { id: 't-mm1867-04', fixture, kind: 'recall', facet: 'finding', question: "Which test dependencies does setup.py's tests extra declare besides pytest?", answers: ['pytz', 'simplejson'] },
]
