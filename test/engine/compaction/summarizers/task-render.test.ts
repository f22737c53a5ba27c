/**
 * The task section when the first message was a question (issue 22): the request in
 * progress leads, the first message and the requests before it follow with their outcome,
 * in every format and dialect; a first message that is the work keeps its gist.
 */
import t from 'tap'
import { compactAllFormats } from '../../../helpers/compact-all-formats.ts'
import { DIALECTS, gitWorkflowSession, questionFirstSession } from '../../../helpers/workflow-conversations.ts'

const taskSection = (summary: string) => /### Original Task\n[\s\S]*?(?=\n\n###|\n*$)/.exec(summary)?.[0] ?? ''

t.test('a session that opened with questions: the work asked for later leads, the answers follow', async (t) => {
  for (const dialect of DIALECTS) {
    const runs = await compactAllFormats(questionFirstSession(dialect).messages, 0.25)
    for (const run of runs) {
      const task = taskSection(run.summary)
      t.match(task, /^### Original Task\nIn progress \(asked later in the session\): "Add a --since option to the export command in ledger\/cli\.py/, `${dialect}/${run.format}: the work leads`)
      t.match(task, '- first message: "what is the working directory?" → agent: The working directory is /home/dev/projects/ledger.', `${dialect}/${run.format}: the first question and its answer`)
      t.match(run.summary, '- "which branch is checked out?" → agent: You are on release-2024-q3.', `${dialect}/${run.format}: the second, among the instructions`)
      t.notMatch(run.summary, /Working on: Add a --since/, `${dialect}/${run.format}: not said again as the current state`)
      t.notMatch(run.summary, /^- "Add a --since option/m, `${dialect}/${run.format}: nor quoted again among the instructions`)
    }
    t.equal(new Set(runs.map((r) => taskSection(r.summary))).size, 1, `${dialect}: the same task section in every format`)
  }
})

t.test('a first message that sets the work keeps its gist as the task', async (t) => {
  const runs = await compactAllFormats(gitWorkflowSession('claude').messages, 0.25)
  for (const run of runs) t.match(taskSection(run.summary), /^### Original Task\nThe ISO week parser returns week 53/, run.format)
})
