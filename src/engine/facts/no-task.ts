/**
 * "No pending task", "nothing left", "all done" is not a task (issue 22). An agent's own
 * summary often says so under its Pending heading ("- No pending task — the fix was
 * merged in PR #52. Awaiting next instruction."), and a plan tool may carry such an item;
 * read as a pending step, it became an open checkbox in the next summary. Such a line
 * says where the work stands: it belongs with the state, never in the pending list.
 *
 * Serves sessions that were compacted before (an earlier summary folded in) and sessions
 * whose todo list ends with a "nothing left" item. Conservative: the statement must open
 * the line, and "nothing left but the docs" is a task.
 */

const OBJECT = '(?:tasks?|work|items?|steps?|todos?|to-?dos?|action items?|requests?|follow-?ups?|changes?)'
const QUALIFIER = '(?:more|further|other|open|pending|remaining|outstanding|explicit(?:ly)?|additional|new|immediate|current|active)'

const NO_TASK_RE = new RegExp(
  [
    `(?:there (?:is|are) )?no (?:${QUALIFIER} )*${OBJECT}\\b`,
    `nothing (?:(?:else|more|further) )?(?:left|pending|remaining|outstanding|to do|in progress)\\b`,
    `none\\b(?! of)`,
    `n/a\\b`,
    `(?:all|everything) (?:(?:the )?(?:tasks?|work|items?|steps?) )?(?:is |are |has been |have been )?(?:done|complete[d]?|finished)\\b`,
    // Korean, Japanese, Chinese: "남은 작업 없음", "残タスクなし", "没有待办".
    `(?:남은|대기 ?중인|진행 ?중인|보류 ?중인)? ?(?:작업|태스크|일|할 ?일) ?없`,
    `(?:残り?の?)?(?:タスク|作業)(?:は)?なし`,
    `(?:没有|无)(?:待办|待处理|剩余)`,
  ].join('|'),
  'i',
)

/** An exception that makes it a task after all: "nothing left but the docs". */
const BUT_RE = /^[^.;:—–]*\b(?:but|except|other than|apart from|besides|until|unless)\b/i

/** Markers a pending line starts with: a bullet, a checkbox, emphasis, an earlier summary's status. */
const LEAD_RE = /^\s*(?:[-*+•]\s+|\d+[.)]\s+)?(?:\[[^\]]{0,12}\]\s*)?(?:\*\*|__)?\s*/

/** Whether a pending line only says that there is no task (it may go on to say where things stand). */
export function saysNoTask(line: string): boolean {
  const text = line.replace(LEAD_RE, '')
  const m = NO_TASK_RE.exec(text)
  if (!m || m.index !== 0) return false
  return !BUT_RE.test(text.slice(0, 120))
}
