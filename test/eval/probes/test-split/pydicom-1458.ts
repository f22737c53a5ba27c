import type { Probe } from '../core.ts'

const fixture = 'gpt4_default__pydicom__pydicom-1458'

/**
 * pydicom 1458 (SWE-agent, GPT-4): PixelRepresentation should be optional for float pixel
 * data. Short session whose first user message is a long demonstration (kept verbatim), so
 * the task itself is in the compacted range. At this commit every budget up to 50% answers
 * 422 on it, so these probes are counted and validated but excluded from the rates. Test
 * split: written from the session, blind to compactd's output.
 */
export const probes: Probe[] = [
  { id: 't-pd1458-01', fixture, kind: 'recall', question: 'What error does reproduce_bug.py raise before the fix?', answers: ['required elements are missing from the dataset: PixelRepresentation'] },
  { id: 't-pd1458-02', fixture, kind: 'recall', facet: 'finding', question: 'At which line of pixel_data_handlers/numpy_handler.py is the error raised?', answers: ['line 293'] },
  { id: 't-pd1458-03', fixture, kind: 'recall', facet: 'finding', question: 'Which other numpy_handler.py modules exist (and are not the one to change)?', answers: ['overlays/numpy_handler.py', 'waveforms/numpy_handler.py'] },
  { id: 't-pd1458-04', fixture, kind: 'decision', facet: 'rejected', question: 'Why was the first edit of lines 287:295 refused?', answers: ["unmatched ']'"] },
  { id: 't-pd1458-05', fixture, kind: 'recall', question: 'Which DICOM standard section does the issue cite for Float Pixel Data (where Pixel Representation shall be absent)?', answers: ['sect_C.7.6.24'] },
]
