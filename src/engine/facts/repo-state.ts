/**
 * Where the repository stands (issue 22): what the session committed, pushed, branched and
 * opened as pull requests, and the last diff or status it read. Read from evidence only:
 * git's and gh's own output lines (`[main 3f2a1bc] Fix the parser`, `   abc..def  main ->
 * main` under `To <remote>`, `Switched to a new branch 'x'`, a pull-request URL printed by
 * `gh pr create`), never from what the agent says it did. Any tool dialect feeds it the
 * same way (OpenAI's bash, Claude Code's Bash, Codex's shell/exec_command): a command and
 * its output.
 *
 * Conversation class served: a git workflow session (edit, test, commit, push, open a PR),
 * where the hashes, branch names and PR URLs are what the next agent cannot re-derive
 * cheaply and what a reviewer asks for first.
 */
import { parseUnifiedDiff, looksLikeUnifiedDiff } from './artifacts/patches.ts'
import { clip } from './text.ts'

export interface RepoCommit {
  hash: string
  branch?: string
  message: string
  /** git's summary line: `4 files changed, 207 insertions(+), 243 deletions(-)`, shortened. */
  stat?: string
  /** The remote a later push of its branch went to. */
  pushedTo?: string
  position: number
}

export interface RepoPush {
  /** Local ref → remote ref, as git printed it (`feat/x -> feat/x`). */
  ref: string
  /** `28c95af..5fd8279`, absent for a new branch or tag. */
  range?: string
  remote?: string
  position: number
}

export interface RepoPullRequest {
  number?: number
  url?: string
  opened: boolean
  merged: boolean
  closed: boolean
  head?: string
  base?: string
  position: number
}

export interface RepoUpdate {
  /** What moved the branch: a fast-forward (`Updating a..b`), a merge, a reset, a stash. */
  how: 'fast-forward' | 'merge' | 'reset' | 'stash'
  branch?: string
  text: string
  position: number
}

export interface RepoState {
  commits: RepoCommit[]
  /** Pushes whose commits the session did not make itself (the others are said on their commits). */
  pushes: RepoPush[]
  pullRequests: RepoPullRequest[]
  updates: RepoUpdate[]
  branchesCreated: { name: string; position: number }[]
  branchesDeleted: { name: string; position: number }[]
  /** The branch checked out at the end, from the last evidence of it. */
  branch?: { name: string; position: number }
  /** The last `git status` read: ahead/behind, clean or what is modified and untracked. */
  status?: { text: string; position: number }
  /** The last `git diff` read: its stat line, or its files with +/−. */
  diff?: { command: string; text: string; position: number }
  /** The newest commit of the last plain `git log` read (HEAD, unless the session committed after it). */
  logHead?: { hash: string; message: string; position: number }
}

export function emptyRepoState(): RepoState {
  return { commits: [], pushes: [], pullRequests: [], updates: [], branchesCreated: [], branchesDeleted: [] }
}

export function hasRepoState(s: RepoState): boolean {
  return s.commits.length + s.pushes.length + s.pullRequests.length + s.updates.length + s.branchesCreated.length + s.branchesDeleted.length > 0 || !!(s.status || s.diff || s.logHead)
}

const HASH = '[0-9a-f]{7,40}'
const COMMIT_LINE = new RegExp(`^\\[(.+?)(?: \\(root-commit\\))? (${HASH})\\] (.+)$`)
const STAT_LINE = /^\s*(\d+) files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?\s*$/
const REF_LINE = new RegExp(`^\\s*[+*=-]?\\s*(?:(\\[new branch\\]|\\[new tag\\])|(${HASH}\\.\\.\\.?${HASH}))\\s+(\\S+)\\s+->\\s+(\\S+)`)
const PR_URL = /https?:\/\/[^\s'"<>)]+?\/(?:pull|pulls|merge_requests)\/(\d+)(?![\w#/-])/
const PR_CREATE = /\b(?:gh|hub)\s+pr\s+create\b|\bhub\s+pull-request\b|\bglab\s+mr\s+create\b/
const PR_MERGE = /\b(?:gh\s+pr|glab\s+mr)\s+merge\b(?:\s+(?:#|!)?(\d+))?/
const PR_CLOSE = /\b(?:gh\s+pr|glab\s+mr)\s+close\b(?:\s+(?:#|!)?(\d+))?/
const MERGED_LINE = /\b(?:Merged|Squashed and merged|Rebased and merged) pull request (?:[\w.-]+\/[\w.-]+)?#(\d+)/
/** A pull-request tool of an MCP server or agent SDK (`create_pull_request`, `github.create_pr`). */
const PR_TOOL = /(?:create|open)_?(?:pull_?request|pr)$/i
const GIT = '\\bgit(?:\\s+-C\\s+\\S+|\\s+--no-pager|\\s+-c\\s+\\S+)*\\s+'
const GIT_DIFF = new RegExp(`${GIT}diff\\b`)
const GIT_STATUS = new RegExp(`${GIT}status\\b`)
/** A checkout of a branch: one operand, not a file name (`git checkout a/b.py` restores a file). */
const GIT_CHECKOUT = new RegExp(`${GIT}(?:checkout|switch)\\s+(?!-)([\\w./-]+?)(?<!\\.[A-Za-z]\\w{0,9})\\s*(?:$|&&|;|\\||2>)`)
/** A plain `git log` (its first line is HEAD): no search, author, range, path or --all. */
const PLAIN_GIT_LOG = new RegExp(`${GIT}log(?:\\s+(?:--oneline|--decorate|--graph|--no-decorate|-n\\s*\\d+|-\\d+|--max-count=\\d+|--format=\\S+|--pretty=\\S+))*\\s*(?:$|\\||&&|;|2>)`)
const GIT_NEW_BRANCH = new RegExp(`${GIT}(?:checkout\\s+-b|switch\\s+-c|switch\\s+--create)\\s+([\\w./-]+)`)

function shortStat(line: string): string | undefined {
  const m = STAT_LINE.exec(line)
  if (!m) return undefined
  return `${m[1]} file${m[1] === '1' ? '' : 's'}, +${m[2] ?? 0}/-${m[3] ?? 0}`
}

/** A flag's value in a command (`--base dev`, `-B dev`, `--title "x"`). */
function flag(command: string, names: string[]): string | undefined {
  for (const n of names) {
    const m = new RegExp(`(?:^|\\s)${n}(?:=|\\s+)(?:"([^"]*)"|'([^']*)'|(\\S+))`).exec(command)
    if (m) return m[1] ?? m[2] ?? m[3]
  }
  return undefined
}

/**
 * Reads the session's commands in order (`see`), then says where the repository stands
 * (`state`). One reader per compacted range.
 */
export class RepoStateReader {
  private readonly s = emptyRepoState()

  /** One tool call: its tool name, command (shell) or arguments, output, and whether it failed. */
  see(position: number, tool: string, command: string, output: string, failed: boolean): void {
    if (!/\b(?:git|gh|hub|glab)\b/.test(command) && !PR_TOOL.test(tool)) return
    // A checkout in the command comes before what its output says (`git checkout dev && git pull`).
    const checkout = GIT_CHECKOUT.exec(command)
    if (checkout && !failed) this.onBranch(checkout[1]!, position)
    this.readOutputLines(position, output)
    if (!failed) this.readCommand(position, tool, command, output)
  }

  state(): RepoState {
    return this.s
  }

  /** What git and gh printed, line by line: commits, pushes (under `To`), branches, moves of HEAD, merged PRs. */
  private readOutputLines(position: number, output: string): void {
    const s = this.s
    const lines = output.split(/\r?\n/)
    let section: 'push' | 'fetch' | undefined
    let remote: string | undefined
    for (let k = 0; k < lines.length; k++) {
      const line = lines[k]!
      const to = /^To (\S+)\s*$/.exec(line)
      const from = /^From (\S+)\s*$/.exec(line)
      if (to) [section, remote] = ['push', to[1]]
      else if (from) [section, remote] = ['fetch', from[1]]
      const commit = COMMIT_LINE.exec(line)
      if (commit) {
        const stat = lines[k + 1] !== undefined ? shortStat(lines[k + 1]!) : undefined
        const branch = commit[1]!.startsWith('detached') ? undefined : commit[1]!
        s.commits.push({ hash: commit[2]!, message: commit[3]!.trim(), position, ...(branch ? { branch } : {}), ...(stat ? { stat } : {}) })
        if (branch) this.onBranch(branch, position)
        continue
      }
      const ref = REF_LINE.exec(line)
      if (ref && section === 'push') {
        const push: RepoPush = { ref: `${ref[3]} -> ${ref[4]}`, position, ...(ref[2] ? { range: ref[2] } : {}), ...(remote ? { remote } : {}) }
        this.pushed(push, ref[3]!)
        continue
      }
      let m: RegExpExecArray | null
      if ((m = /^Switched to a new branch '([^']+)'/.exec(line))) {
        s.branchesCreated.push({ name: m[1]!, position })
        this.onBranch(m[1]!, position)
      } else if ((m = /^(?:Switched to branch|Already on) '([^']+)'/.exec(line))) this.onBranch(m[1]!, position)
      else if ((m = /^On branch (\S+)/.exec(line))) this.onBranch(m[1]!, position)
      else if ((m = /^Deleted branch (\S+)/.exec(line))) s.branchesDeleted.push({ name: m[1]!, position })
      else if ((m = new RegExp(`^Updating (${HASH}\\.\\.${HASH})$`).exec(line)) && /^Fast-forward\b/.test(lines[k + 1] ?? '')) {
        s.updates.push({ how: 'fast-forward', text: m[1]!, position, ...(this.branchName() ? { branch: this.branchName()! } : {}) })
      } else if ((m = new RegExp(`^HEAD is now at (${HASH}) (.+)$`).exec(line))) s.updates.push({ how: 'reset', text: `${m[1]} ${clip(m[2]!, 100)}`, position })
      else if ((m = /^Saved working directory and index state (.+)$/.exec(line))) s.updates.push({ how: 'stash', text: clip(m[1]!, 120), position })
      else if (/^Merge made by the '[\w-]+' strategy\.?$/.test(line)) s.updates.push({ how: 'merge', text: 'merge commit made', position, ...(this.branchName() ? { branch: this.branchName()! } : {}) })
      else if ((m = MERGED_LINE.exec(line))) this.pr({ number: Number(m[1]) }, position, 'merged')
    }
  }

  /** What the command itself says, once it succeeded: a new branch, a PR opened, merged or closed, a status, diff or log read. */
  private readCommand(position: number, tool: string, command: string, output: string): void {
    const s = this.s
    const created = GIT_NEW_BRANCH.exec(command)
    if (created && !s.branchesCreated.some((b) => b.name === created[1] && b.position === position)) {
      s.branchesCreated.push({ name: created[1]!, position })
      this.onBranch(created[1]!, position)
    }
    const url = PR_URL.exec(output)
    if (PR_CREATE.test(command) || PR_TOOL.test(tool)) {
      if (url) {
        const head = flag(command, ['--head', '-H'])
        const base = flag(command, ['--base', '-B'])
        this.pr({ number: Number(url[1]), url: url[0], ...(head ? { head } : {}), ...(base ? { base } : {}) }, position, 'opened')
      }
    } else if (PR_MERGE.test(command)) {
      const n = PR_MERGE.exec(command)![1] ?? url?.[1]
      this.pr(n ? { number: Number(n) } : {}, position, 'merged')
    } else if (PR_CLOSE.test(command)) {
      const n = PR_CLOSE.exec(command)![1] ?? url?.[1]
      if (n) this.pr({ number: Number(n) }, position, 'closed')
    }
    if (GIT_STATUS.test(command)) this.readStatus(output, position)
    if (GIT_DIFF.test(command)) this.readDiff(command, output, position)
    if (PLAIN_GIT_LOG.test(command)) this.readLog(output, position)
  }

  private branchName(): string | undefined {
    return this.s.branch?.name
  }

  private onBranch(name: string, position: number): void {
    this.s.branch = { name, position }
  }

  /** A push marks the session's commits on that branch as pushed; a push of nothing the session committed is said on its own. */
  private pushed(push: RepoPush, localRef: string): void {
    let covered = false
    for (const c of this.s.commits) {
      if (c.branch === localRef && c.pushedTo === undefined) {
        c.pushedTo = push.remote ?? 'the remote'
        covered = true
      }
    }
    if (!covered) this.s.pushes.push(push)
  }

  private pr(pr: { number?: number; url?: string; head?: string; base?: string }, position: number, action: 'opened' | 'merged' | 'closed'): void {
    const same = pr.number !== undefined ? this.s.pullRequests.find((p) => p.number === pr.number) : undefined
    const target = same ?? { opened: false, merged: false, closed: false, position, ...pr }
    if (!same) this.s.pullRequests.push(target)
    Object.assign(target, pr)
    target.position = position
    if (action === 'opened') {
      target.opened = true
      target.head ??= this.branchName()
    } else if (action === 'merged') target.merged = true
    else target.closed = true
  }

  private readStatus(output: string, position: number): void {
    const parts: string[] = []
    const ahead = /Your branch is (ahead of|behind) '([^']+)' by (\d+) commits?/.exec(output)
    if (ahead) parts.push(`${ahead[1]} ${ahead[2]} by ${ahead[3]}`)
    else if (/Your branch and '[^']+' have diverged/.test(output)) parts.push('diverged from its upstream')
    if (/nothing to commit,? working tree clean/.test(output)) parts.push('working tree clean')
    else {
      const modified: string[] = []
      const untracked: string[] = []
      let inUntracked = false
      for (const line of output.split(/\r?\n/)) {
        if (/^Untracked files:/.test(line)) inUntracked = true
        else if (/^(?:Changes|Unmerged)/.test(line)) inUntracked = false
        const long = /^\s+(?:modified|new file|deleted|renamed|both modified):\s+(.+)$/.exec(line)
        const short = /^\s?([MADRCU?]{1,2})\s+(\S.*)$/.exec(line)
        if (long) modified.push(long[1]!.trim())
        else if (inUntracked && /^\t(\S.*)$/.test(line)) untracked.push(line.trim())
        else if (short && !/^On branch|^Your branch/.test(line)) (short[1] === '??' ? untracked : modified).push(short[2]!.trim())
      }
      if (modified.length) parts.push(`changed: ${listed(modified)}`)
      if (untracked.length) parts.push(`untracked: ${listed(untracked)}`)
    }
    if (parts.length) this.s.status = { text: parts.join('; '), position }
  }

  private readDiff(command: string, output: string, position: number): void {
    const stat = output.split(/\r?\n/).map(shortStat).filter((x) => x !== undefined).at(-1)
    if (stat && !looksLikeUnifiedDiff(output)) {
      this.s.diff = { command, text: stat, position }
      return
    }
    if (!looksLikeUnifiedDiff(output)) return
    const files = parseUnifiedDiff(output).map((c) => `${c.path} +${c.added ?? 0}/-${c.removed ?? 0}`)
    if (files.length) this.s.diff = { command, text: listed(files), position }
  }

  private readLog(output: string, position: number): void {
    const lines = output.split(/\r?\n/)
    for (let k = 0; k < lines.length; k++) {
      const line = lines[k]!.replace(/^[*|\\/ ]+/, '')
      const full = new RegExp(`^commit (${HASH})\\b`).exec(line)
      if (full) {
        const message = lines.slice(k + 1).find((l) => /^\s{4}\S/.test(l))?.trim() ?? ''
        this.s.logHead = { hash: full[1]!.slice(0, 7), message: clip(message, 100), position }
        return
      }
      const one = new RegExp(`^(${HASH})\\s+(?:\\([^)]*\\)\\s+)?(\\S.*)$`).exec(line)
      if (one) {
        this.s.logHead = { hash: one[1]!, message: clip(one[2]!, 100), position }
        return
      }
    }
  }
}

/** The git command of a chain (`cd x && git diff a.py > p.txt && cat p.txt` → `git diff a.py`). */
function gitPart(command: string): string {
  const at = command.search(/\bgit\b/)
  const rest = at < 0 ? command : command.slice(at)
  return rest.split(/\s*(?:&&|\|\||;|\||>)\s*/)[0]!.trim()
}

function listed(items: readonly string[], max = 8): string {
  const uniq = [...new Set(items)]
  return uniq.length > max ? `${uniq.slice(0, max).join(', ')} and ${uniq.length - max} more` : uniq.join(', ')
}

/**
 * The repository's state as summary lines, newest last, each with whether it is a headline
 * (commits, pushes, pull requests, the current branch: what happened to the repository) or
 * a detail (a fast-forward, a stash, the last diff, status or log read: what it looked like).
 */
export function repoStateLines(s: RepoState, maxCommits = 12): { text: string; headline: boolean; position: number }[] {
  const out: { text: string; headline: boolean; position: number }[] = []
  const commits = s.commits.slice(-maxCommits)
  if (s.commits.length > commits.length) out.push({ text: `- (${s.commits.length - commits.length} earlier commits of this session not listed)`, headline: false, position: commits[0]!.position })
  for (const c of commits) {
    const where = c.branch ? ` on ${c.branch}` : ''
    const extra = [c.stat, c.pushedTo ? `pushed to ${c.pushedTo}` : undefined].filter(Boolean).join('; ')
    out.push({ text: `- commit ${c.hash}${where}: ${clip(c.message, 120)}${extra ? ` (${extra})` : ''}`, headline: true, position: c.position })
  }
  for (const p of s.pushes) out.push({ text: `- pushed ${p.ref}${p.range ? ` (${p.range})` : ' (new)'}${p.remote ? ` to ${p.remote}` : ''}`, headline: true, position: p.position })
  for (const pr of s.pullRequests) {
    const name = pr.number !== undefined ? `PR #${pr.number}` : 'PR'
    const states = [pr.opened ? 'opened' : undefined, pr.merged ? 'merged' : undefined, pr.closed && !pr.merged ? 'closed' : undefined].filter(Boolean).join(', then ')
    const refs = pr.head || pr.base ? ` (${pr.head ?? '?'} → ${pr.base ?? 'default branch'})` : ''
    out.push({ text: `- ${name} ${states}${pr.url ? `: ${pr.url}` : ''}${refs}`, headline: true, position: pr.position })
  }
  const committedOn = new Set(s.commits.map((c) => c.branch))
  for (const b of s.branchesCreated) if (!committedOn.has(b.name)) out.push({ text: `- created branch ${b.name}`, headline: false, position: b.position })
  for (const b of s.branchesDeleted) out.push({ text: `- deleted branch ${b.name}`, headline: false, position: b.position })
  for (const u of s.updates) {
    const text = u.how === 'fast-forward' ? `${u.branch ?? 'branch'} fast-forwarded ${u.text}` : u.how === 'reset' ? `reset: HEAD is now at ${u.text}` : u.how === 'stash' ? `stashed: ${u.text}` : `${u.branch ?? 'branch'}: ${u.text}`
    out.push({ text: `- ${text}`, headline: false, position: u.position })
  }
  const lastCommit = s.commits.at(-1)
  if (s.logHead && (!lastCommit || s.logHead.position > lastCommit.position) && !s.commits.some((c) => c.hash.startsWith(s.logHead!.hash) || s.logHead!.hash.startsWith(c.hash))) {
    out.push({ text: `- HEAD (last \`git log\` read): ${s.logHead.hash} ${s.logHead.message}`, headline: false, position: s.logHead.position })
  }
  if (s.diff) out.push({ text: `- last \`${clip(gitPart(s.diff.command), 60)}\`: ${s.diff.text}`, headline: false, position: s.diff.position })
  if (s.branch || s.status) {
    const on = s.branch ? `on branch ${s.branch.name}` : ''
    const status = s.status && (!s.branch || s.status.position >= s.branch.position) ? s.status.text : ''
    out.push({ text: `- now: ${[on, status].filter(Boolean).join('; ')}`, headline: true, position: Math.max(s.branch?.position ?? -1, s.status?.position ?? -1) })
  }
  // Oldest first, and where the repository stands now last.
  return out.sort((a, b) => Number(a.text.startsWith('- now:')) - Number(b.text.startsWith('- now:')) || a.position - b.position)
}
