import type { Probe } from './core.ts'

const fixture = 'google-gemini__gemini-cli__trajectory'

/** Gemini CLI "Agent Teams": the session starts from a <state_snapshot> (index 1, compacted range). */
export const probes: Probe[] = [
  { id: 'gemini-01', fixture, kind: 'recall', question: 'Which exact brand colours must Claude and Gemini use?', answers: ['#C15F3C', '#A855F7'] },
  { id: 'gemini-02', fixture, kind: 'recall', question: 'Which error did external agents hit without a registered model config alias?', answers: ['ModelNotFoundError'] },
  { id: 'gemini-03', fixture, kind: 'recall', question: 'Which event forces the client to refresh system instructions when the team changes?', answers: ['ActiveTeamChanged'] },
  { id: 'gemini-04', fixture, kind: 'artifact', question: 'Which files in packages/core/src/agents/ were refactored for team promotion and scaffolding?', answers: ['teamRegistry.ts', 'teamScaffolder.ts'] },
  { id: 'gemini-05', fixture, kind: 'artifact', question: 'Which method was added to modelConfigService.ts for deactivating teams?', answers: ['unregisterRuntimeModelOverridesByScope'] },
  { id: 'gemini-06', fixture, kind: 'decision', question: 'Which metadata flag makes team agents skip the "Ask User" confirmation?', answers: ['isTeamAgent'] },
  { id: 'gemini-07', fixture, kind: 'continuation', question: 'Which TODO step was left after committing the UI changes?', answers: ['Finalize documentation'] },
  { id: 'gemini-08', fixture, kind: 'continuation', question: 'What did the user decide about persisting the agent team selection?', answers: [["shouldn't persist", 'ask me every boot']] },
  { id: 'gemini-09', fixture, kind: 'artifact', question: 'Which files were changed to make team selection non-persistent?', answers: ['AppContainer.tsx', 'settingsSchema.ts'] },
  { id: 'gemini-10', fixture, kind: 'continuation', question: 'What workflow habit did the user ask the agent to stop?', answers: ['stop grouping build & commit'] },
  { id: 'gemini-11', fixture, kind: 'decision', question: 'Which roster wording did the user reject?', answers: ['Tab to toggle List/Action'] },
  { id: 'gemini-12', fixture, kind: 'continuation', question: 'What did the user want done about the rendering breaks in the agent selection box?', answers: ['drop the borders'] },
  { id: 'gemini-13', fixture, kind: 'decision', question: 'Which generic tag did the roster show before provider labels were added?', answers: ['[EXTERNAL]'] },
  { id: 'gemini-14', fixture, kind: 'continuation', question: 'Why did the user ask to remove the "Providers:" summary line?', answers: ['It feels duplicative'] },
]
