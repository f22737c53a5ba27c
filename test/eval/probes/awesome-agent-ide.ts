import type { Probe } from './core.ts'

const fixture = 'pinion05__agent-complex-task__04-awesome-agent-ide'

/** Ranking agent-native IDEs, publishing awesome-agent-ide, translating and fact-checking it. */
export const probes: Probe[] = [
  { id: 'ide-01', fixture, kind: 'continuation', question: 'Under which name did the user ask for the repository (as typed)?', answers: ['awsome-agent-ide'] },
  { id: 'ide-02', fixture, kind: 'continuation', question: 'How did the user want the HTML published?', answers: ['깃헙페이지로 배포해줘'] },
  { id: 'ide-03', fixture, kind: 'artifact', question: 'From which folder is GitHub Pages served?', answers: ['source[path]=/docs'] },
  { id: 'ide-04', fixture, kind: 'recall', question: 'What is the GitHub Pages URL?', answers: ['pinion05.github.io/awesome-agent-ide'] },
  { id: 'ide-05', fixture, kind: 'artifact', question: 'Which file was added so Pages skips Jekyll, and under which licence is the list?', answers: ['.nojekyll', 'CC0-1.0'] },
  { id: 'ide-06', fixture, kind: 'artifact', question: 'Which commit added the translations?', answers: ['Add multilingual README'] },
  { id: 'ide-07', fixture, kind: 'continuation', question: 'What did the user ask for after the translations?', answers: ['서브에이전트로 팩트체크'] },
  { id: 'ide-08', fixture, kind: 'decision', question: "How was Emdash's website corrected by the fact check?", answers: ['emdash.sh', 'emdash.ai'] },
  { id: 'ide-09', fixture, kind: 'decision', question: "How many ticket platforms does Emdash integrate after the fact check?", answers: ['12 ticket platforms'] },
  { id: 'ide-10', fixture, kind: 'decision', question: 'Which platform correction was made for Nimbalyst?', answers: ['iOS + Android'] },
]
