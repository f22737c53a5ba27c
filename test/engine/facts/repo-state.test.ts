/**
 * Repository state (issue 22): commits, pushes, branches and pull requests read from git's
 * and gh's own output, in every tool dialect, and kept in the summary's Repository State.
 */
import t from 'tap'
import { extractHandover } from '../../../src/engine/facts/handover.ts'
import { RepoStateReader, repoStateLines } from '../../../src/engine/facts/repo-state.ts'
import { parseConversation } from '../../../src/engine/messages/index.ts'
import { compactAllFormats } from '../../helpers/compact-all-formats.ts'
import { DIALECTS, gitWorkflowSession } from '../../helpers/workflow-conversations.ts'

t.test('commits, pushes, new branches and pull requests from their output lines', async (t) => {
  const r = new RepoStateReader()
  r.see(1, 'bash', 'git checkout -b feat/x', "Switched to a new branch 'feat/x'", false)
  r.see(2, 'bash', 'git commit -am "Add x"', '[feat/x 3f2a1bc] Add x\n 2 files changed, 10 insertions(+), 1 deletion(-)', false)
  r.see(3, 'bash', 'git push -u origin feat/x', 'To github.com:o/r.git\n * [new branch]      feat/x -> feat/x', false)
  r.see(4, 'bash', 'gh pr create --base main --title "x"', 'https://github.com/o/r/pull/12\n', false)
  r.see(5, 'bash', 'gh pr merge 12 --merge', '✓ Merged pull request o/r#12 (Add x)', false)
  const s = r.state()
  t.same(s.commits.map((c) => [c.hash, c.branch, c.message, c.stat, c.pushedTo]), [['3f2a1bc', 'feat/x', 'Add x', '2 files, +10/-1', 'github.com:o/r.git']])
  t.same(s.pushes, [], 'a push of the session’s own commit is said on the commit')
  t.match(s.pullRequests, [{ number: 12, url: 'https://github.com/o/r/pull/12', opened: true, merged: true, head: 'feat/x', base: 'main' }])
  t.same(s.branch?.name, 'feat/x')
  const lines = repoStateLines(s).map((l) => l.text)
  t.same(lines, [
    '- commit 3f2a1bc on feat/x: Add x (2 files, +10/-1; pushed to github.com:o/r.git)',
    '- PR #12 opened, then merged: https://github.com/o/r/pull/12 (feat/x → main)',
    '- now: on branch feat/x',
  ])
})

t.test('a fetch is not a push; a fast-forward, a reset, a stash and a deleted branch are details', async (t) => {
  const r = new RepoStateReader()
  r.see(1, 'bash', 'git checkout main && git pull --ff-only', 'From https://github.com/o/r\n   52f2532..ca7ca30  main       -> origin/main\nUpdating 52f2532..ca7ca30\nFast-forward\n 3 files changed, 9 insertions(+)', false)
  r.see(2, 'bash', 'git stash', 'Saved working directory and index state WIP on main: ca7ca30 Merge pull request #45', false)
  r.see(3, 'bash', 'git reset --hard HEAD~1', 'HEAD is now at 52f2532 Bump version', false)
  r.see(4, 'bash', 'git branch -D old/x', 'Deleted branch old/x (was 1234567).', false)
  r.see(5, 'bash', 'git push origin main', 'To github.com:o/r.git\n   52f2532..77aa001  main -> main', false)
  const lines = repoStateLines(r.state())
  t.same(
    lines.map((l) => [l.text, l.headline]),
    [
      ['- main fast-forwarded 52f2532..ca7ca30', false],
      ['- stashed: WIP on main: ca7ca30 Merge pull request #45', false],
      ['- reset: HEAD is now at 52f2532 Bump version', false],
      ['- deleted branch old/x', false],
      ['- pushed main -> main (52f2532..77aa001) to github.com:o/r.git', true],
      ['- now: on branch main', true],
    ].sort((a, b) => lines.findIndex((l) => l.text === a[0]) - lines.findIndex((l) => l.text === b[0])),
  )
  t.notOk(r.state().pushes.some((p) => p.ref.includes('origin/main')), 'the fetch line under From is not a push')
})

t.test('the last status, diff and plain log read; a file checkout is not a branch', async (t) => {
  const r = new RepoStateReader()
  r.see(1, 'bash', 'git status', "On branch fix/y\nYour branch is ahead of 'origin/fix/y' by 2 commits.\n\nChanges not staged for commit:\n\tmodified:   src/a.py\n\nUntracked files:\n\treproduce.py\n", false)
  r.see(2, 'bash', 'git diff --stat', ' src/a.py | 4 ++--\n 1 file changed, 2 insertions(+), 2 deletions(-)', false)
  r.see(3, 'bash', 'git log --oneline -3', 'a1b2c3d (HEAD -> fix/y) Guard empty input\n9f8e7d6 Add parser\n', false)
  r.see(4, 'bash', 'git log --all --grep=parser --oneline', '0000aaa unrelated match\n', false)
  r.see(5, 'bash', 'git checkout src/a.py', '', false)
  const s = r.state()
  t.equal(s.status?.text, "ahead of origin/fix/y by 2; changed: src/a.py; untracked: reproduce.py")
  t.equal(s.diff?.text, '1 file, +2/-2')
  t.same([s.logHead?.hash, s.logHead?.message], ['a1b2c3d', 'Guard empty input'], 'a log search is not HEAD')
  t.equal(s.branch?.name, 'fix/y', '`git checkout src/a.py` restores a file: the branch stays')
  r.see(6, 'bash', 'git diff', 'diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1,2 +1,3 @@\n x = 1\n-y = 2\n+y = 3\n+z = 4\n', false)
  t.equal(r.state().diff?.text, 'src/a.py +2/-1')
})

t.test('a git workflow session in every dialect: the commit, the branch, the push and the PR are facts', async (t) => {
  for (const dialect of DIALECTS) {
    const conv = gitWorkflowSession(dialect)
    const facts = extractHandover(parseConversation(conv.messages, { format: 'openai' }).messages, { preserveErrorDetails: true })
    const repo = facts.repo!
    t.match(repo.commits, [{ hash: '9c41e7d', branch: 'fix/iso-week-boundary', message: 'Use isocalendar week at year boundaries', pushedTo: 'github.com:acme/calendar.git' }], dialect)
    t.match(repo.pullRequests, [{ number: 214, url: 'https://github.com/acme/calendar/pull/214', opened: true, head: 'fix/iso-week-boundary', base: 'main' }], dialect)
  }
})

t.test('the summary keeps the Repository State, the same in every format', async (t) => {
  for (const dialect of DIALECTS) {
    const conv = gitWorkflowSession(dialect)
    const runs = await compactAllFormats(conv.messages, 0.25)
    for (const run of runs) {
      t.match(run.summary, /### Repository State\n(?:.*\n)*- commit 9c41e7d on fix\/iso-week-boundary: Use isocalendar week at year boundaries \(2 files, \+14\/-3; pushed to github\.com:acme\/calendar\.git\)/, `${dialect}/${run.format}: the commit`)
      t.match(run.summary, '- PR #214 opened: https://github.com/acme/calendar/pull/214 (fix/iso-week-boundary → main)', `${dialect}/${run.format}: the PR`)
    }
    const section = (s: string) => /### Repository State\n[\s\S]*?(?=\n\n|$)/.exec(s)?.[0]
    t.equal(new Set(runs.map((r) => section(r.summary))).size, 1, `${dialect}: the same section in every format`)
  }
})
