/**
 * Step "extract": the facts an agent needs to continue, read once from the classified
 * events of the compacted range (events.ts). Every summarizer renders from these (rules
 * directly; llm receives them in its prompt and is checked against them afterwards),
 * and so does the rolling session summary.
 *
 *   - the user's instructions, verbatim, in order (harness text excluded);
 *   - earlier compaction summaries, section by section (folded in as round N−1);
 *   - each file's final fate (created, edited with what changed, deleted, renamed, read);
 *   - failures from evidence, with the failing test and its error line, and whether a
 *     later run of the same command resolved them;
 *   - root causes, decisions, abandoned attempts (conclusions, not musings);
 *   - findings: what the agent learned, its result statements and the output lines they
 *     rest on, and its tables of values (findings/index.ts);
 *   - the latest plan/todo state, the current work and the next step.
 */
import { printedErrorLine } from './printed.ts'
import { compactArgs } from '../conversation/segments.ts'
import type { CanonicalMessage, ToolCallPart, ToolResultPart } from '../messages/canonical.ts'
import { callsOfResults } from '../conversation/pairing.ts'
import { digestToolCall, type ToolDigest } from './tools.ts'
import { digestOf } from './digest-cache.ts'
import { looksLikeUnifiedDiff } from './artifacts/patches.ts'
import { bareName, classifyTool } from './tool-kind.ts'
import { parseArgs } from './tool-args.ts'
import { assistantActs, classifyMessages, isTextOnlyAgent, type ConversationEvent } from './events.ts'
import type { EarlierSummary } from './earlier-summary.ts'
import { planFromToolCall, type PlanItem } from './plan-tools.ts'
import { conclusionsOf } from './reasoning.ts'
import { findingsOf, type Finding } from './findings/index.ts'
import { ArtifactTracker, foldFileFates, type FileChange, type FileFate } from './artifacts.ts'
import { commandIdentity, isTestCommand } from './text.ts'
import { RepoStateReader, type RepoState } from './repo-state.ts'
import { rejectedAttempts, type RejectedAttempt } from './attempts.ts'
import { turnReports, type TurnReport } from './deliverable.ts'
import { requestTrail, type RequestTrail } from './requests.ts'
import { currentStep, isStandingConstraint, type CurrentStep } from './current-step.ts'
import { pathsLearnedFrom, samePathIn, type ReadCall } from './read-reuse.ts'

export interface FailureFact {
  position: number
  /** The command, or `tool target` for other tools. */
  source: string
  exitCode?: number
  errorLine: string
  detail?: string
  /** A later run of the same command that succeeded. */
  resolvedAt?: number
  /** How many runs failed this same way (absent: once). */
  times?: number
}

export interface CommandFact {
  command: string
  runs: number
  lastExitCode?: number
  lastFailed: boolean
  everFailed: boolean
  test: boolean
  /** Every run only read or searched (`cat`, `sed -n`, `rg`, `ls`…): the action log says it, Commands Run need not. */
  readOnly: boolean
  lastPosition: number
}

export interface HandoverFacts {
  instructions: { position: number; text: string }[]
  earlier: EarlierSummary[]
  files: FileFate[]
  /** Files only read, with nothing of what they returned used afterwards (read-reuse.ts): no row of their own. */
  unusedReads?: string[]
  failures: FailureFact[]
  commands: CommandFact[]
  rootCauses: string[]
  decisions: string[]
  abandoned: string[]
  /** What the agent learned, best first (findings/index.ts). */
  findings: Finding[]
  /** Latest state of the agent's own plan/todo tool, when it used one. */
  plan?: PlanItem[]
  /** The last intent the range stated that nothing later has done. */
  nextStep?: string
  /** What the agent was doing when the range ends. */
  currentWork?: string
  /** The last request, when the range ends with the agent reporting it done (nothing is then in progress). */
  finished?: { request: string; report: string }
  /** Digests of every tool call, in order (the action log and masking read these), with the error line a call that succeeded printed (printed.ts). */
  tools: { position: number; digest: ToolDigest; printedError?: string }[]
  /** Commits, pushes, branches and pull requests, from git's own output (repo-state.ts). */
  repo?: RepoState
  /** Changes given up after a failing run or undone, with the evidence (attempts.ts). */
  attempts?: RejectedAttempt[]
  /** Long replies that ended the agent's turn: where the deliverable of a review or research request is (deliverable.ts). */
  reports?: TurnReport[]
  /** The range's user requests with their outcomes, and the one in progress (requests.ts). */
  requests?: RequestTrail
}

const MAX_CONCLUSIONS = { rootCauses: 8, decisions: 16, abandoned: 10 }

type ToolFact = HandoverFacts['tools'][number]

/**
 * A tool call's entry with `printedError` read from its output when first asked for, once:
 * the rolling summary's items ask (sessions/items.ts), a compaction's handover does not
 * (its action log reads the output itself), so a compaction pays nothing for it.
 */
function withPrinted(entry: ToolFact, output: string): ToolFact {
  let line: string | undefined | null = null
  Object.defineProperty(entry, 'printedError', {
    enumerable: true,
    get: () => (line === null ? (line = printedErrorLine(entry.digest, output)) : line),
  })
  return entry
}

function pushLatest(list: string[], s: string, max: number): void {
  const i = list.indexOf(s)
  if (i >= 0) list.splice(i, 1)
  list.push(s)
  if (list.length > max) list.shift() // the latest conclusions matter most
}

/**
 * A call that only read or searched, and succeeded, digests the same with the session's
 * tracker as without it: such a call changes nothing the tracker remembers (no script
 * written, no change for a diff to be checked against). Its digest is then the one masking
 * and the action log share (digest-cache.ts), made once per compaction instead of twice.
 * Any other call, or a read whose output is a diff a `submit`/`diff` tool printed, goes
 * through the tracker (undefined here).
 */
function readOnlyDigest(call: ToolCallPart, args: string, result: ToolResultPart | undefined, preserveErrorDetails: boolean): ToolDigest | undefined {
  if (!result || result.isError === true) return undefined
  // The kind first: any other call is digested by the tracker only, not a second time here.
  const kind = classifyTool(call.name, parseArgs(args))
  if (kind !== 'read' && kind !== 'search') return undefined
  const d = digestOf(call.name, call.argsText, result, preserveErrorDetails)
  if (d.status === 'error' || d.changes.some((c) => c.op !== 'read')) return undefined
  if (/submit|diff/i.test(bareName(call.name)) && looksLikeUnifiedDiff(result.text)) return undefined
  return d
}

/**
 * Facts of `messages` (the compacted range). `later` are the messages after it (the kept
 * tail): an intent they already carried out is not the next step.
 */
export function extractHandover(messages: readonly CanonicalMessage[], opts: { preserveErrorDetails: boolean; later?: readonly CanonicalMessage[] }): HandoverFacts {
  const events = classifyMessages(messages)
  const textOnlyAgent = isTextOnlyAgent(events)
  const facts: HandoverFacts = { instructions: [], earlier: [], files: [], failures: [], commands: [], rootCauses: [], decisions: [], abandoned: [], findings: [], tools: [] }
  // Each call's own result: a reused id pairs sequentially (conversation/pairing.ts).
  const callOf = callsOfResults(messages)
  const results = new Map<ToolCallPart, { part: ToolResultPart; event: number }>()
  events.forEach((e, k) => {
    const call = e.kind === 'tool-output' ? callOf.get(e.result) : undefined
    if (call && e.kind === 'tool-output') results.set(call, { part: e.result, event: k })
  })
  const reads: ReadCall[] = []
  const readOf = (d: ToolDigest, event: number, output: string) => {
    const paths = d.changes.filter((c) => c.op === 'read').map((c) => c.path)
    if (paths.length) reads.push({ event, paths, output })
  }
  // One tracker for the range: it remembers the scripts the session wrote, so running one is seen to edit what it writes.
  const tracker = new ArtifactTracker()
  const changes: (FileChange & { index: number })[] = []
  const commands = new Map<string, CommandFact>()
  const intents: { position: number; text: string }[] = []
  const repo = new RepoStateReader()
  let lastAssistant: string | undefined

  const recordRun = (position: number, source: string, d: ToolDigest, isCommand: boolean) => {
    const failed = d.status === 'error'
    if (isCommand) {
      const key = commandIdentity(source)
      const c = commands.get(key) ?? { command: key, runs: 0, lastFailed: false, everFailed: false, test: isTestCommand(key), readOnly: true, lastPosition: position }
      c.runs++
      c.readOnly &&= d.value === 'read' || d.value === 'search'
      c.lastFailed = failed
      c.everFailed ||= failed
      c.lastPosition = position
      if (d.exitCode !== undefined) c.lastExitCode = d.exitCode
      else delete c.lastExitCode
      commands.set(key, c)
      // A later success of the same command resolves its earlier failures.
      if (!failed) for (const f of facts.failures) if (f.source === key && f.resolvedAt === undefined) f.resolvedAt = position
    }
    if (failed && d.errorLine) {
      // The same failure again (a test re-run before the fix) is one fact, seen more than once.
      const key = isCommand ? commandIdentity(source) : source.trim()
      const same = facts.failures.find((f) => f.source === key && f.errorLine === d.errorLine && f.resolvedAt === undefined)
      if (same) {
        same.times = (same.times ?? 1) + 1
        same.position = position
        return
      }
      facts.failures.push({ position, source: key, errorLine: d.errorLine, ...(d.exitCode !== undefined ? { exitCode: d.exitCode } : {}), ...(opts.preserveErrorDetails && d.errorDetail ? { detail: d.errorDetail } : {}) })
    }
  }

  for (const [k, e] of events.entries()) {
    switch (e.kind) {
      case 'instruction':
        facts.instructions.push({ position: e.position, text: e.text.trim() })
        break
      case 'earlier-summary':
        facts.earlier.push(e.summary)
        break
      case 'assistant':
        if (e.reasoning) break
        lastAssistant = e.text
        for (const c of conclusionsOf(e.text, assistantActs(e, textOnlyAgent))) {
          if (c.kind === 'root-cause') pushLatest(facts.rootCauses, c.text, MAX_CONCLUSIONS.rootCauses)
          else if (c.kind === 'decision') pushLatest(facts.decisions, c.text, MAX_CONCLUSIONS.decisions)
          else if (c.kind === 'abandoned') pushLatest(facts.abandoned, c.text, MAX_CONCLUSIONS.abandoned)
          else if (c.kind === 'next') intents.push({ position: e.position, text: c.text })
        }
        break
      case 'tool-call': {
        const r = results.get(e.call)
        const args = compactArgs(e.call.argsText)
        const output = r?.part.text ?? ''
        const d = readOnlyDigest(e.call, args, r?.part, opts.preserveErrorDetails) ?? digestToolCall(e.call.name, args, output, r?.part.isError === true, opts.preserveErrorDetails, tracker)
        facts.tools.push(withPrinted({ position: e.position, digest: d }, output))
        for (const c of d.changes) changes.push({ ...c, index: e.position })
        if (r) readOf(d, r.event, r.part.text)
        const plan = planFromToolCall(e.call.name, args)
        if (plan) facts.plan = plan
        const isCommand = d.kind === 'shell'
        // A command whose arguments are gone (cold storage) has no identity to record.
        if (isCommand && !d.target) break
        recordRun(e.position, isCommand ? d.target! : `${d.tool} ${d.target ?? ''}`, d, isCommand)
        repo.see(e.position, d.tool, isCommand ? d.target! : args, output, d.status === 'error')
        break
      }
      case 'text-command': {
        const d = digestToolCall('bash', JSON.stringify({ command: e.command }), e.output, false, opts.preserveErrorDetails, tracker)
        facts.tools.push(withPrinted({ position: e.position, digest: d }, e.output))
        for (const c of d.changes) changes.push({ ...c, index: e.position })
        readOf(d, k, e.output)
        recordRun(e.position, e.command, d, true)
        repo.see(e.position, 'bash', e.command, e.output, d.status === 'error')
        break
      }
      default:
        break
    }
  }
  // A file only read earns a row when something it returned was used afterwards (read-reuse.ts).
  // The events after the range (the kept tail), read once: reuse there counts for reads and findings.
  const laterEvents = opts.later?.length ? classifyMessages(opts.later) : []
  const learned = pathsLearnedFrom(events, reads, laterEvents)
  facts.unusedReads = []
  for (const f of foldFileFates(changes)) {
    if (f.fate !== 'read' || samePathIn(f.path, learned)) facts.files.push(f)
    else facts.unusedReads.push(f.path)
  }
  facts.commands = [...commands.values()]
  facts.repo = repo.state()
  facts.attempts = rejectedAttempts(facts.tools, events, facts.files)
  facts.reports = turnReports(events, facts.tools)
  facts.requests = requestTrail(events, facts.tools, isStandingConstraint)
  facts.nextStep = nextStep(intents, facts, opts.later ?? [])
  // The current step, not a finished one (current-step.ts).
  // With no request in the range, the last message's stated step or decision, never a finding: "Working on: X returns Y" misleads.
  const step = currentStep(events, facts.plan, lastAssistant ? conclusionsOf(lastAssistant, true).find((c) => c.kind === 'next' || c.kind === 'decision')?.text : undefined)
  if (step.finished) facts.finished = step.finished
  else {
    const working = currentWork(facts, step)
    if (working) facts.currentWork = working
  }
  facts.findings = findingsOf(events, laterEvents)
  return facts
}

/** The last stated intent whose object (a path or command word) no later call touched. */
function nextStep(intents: { position: number; text: string }[], facts: HandoverFacts, later: readonly CanonicalMessage[]): string | undefined {
  const laterCalls = later.flatMap((m) => m.parts.filter((p) => p.type === 'tool-call').map((p) => (p as { argsText: string }).argsText))
  for (let k = intents.length - 1; k >= 0; k--) {
    const intent = intents[k]!
    const objects = (intent.text.match(/`([^`]+)`|[\w./-]+\.\w{1,6}\b/g) ?? []).map((o) => o.replace(/`/g, ''))
    const doneLater = (args: string) => objects.some((o) => o.length > 3 && args.includes(o))
    const doneInRange = facts.tools.some((t) => t.position > intent.position && objects.some((o) => o.length > 3 && (t.digest.target ?? '').includes(o)))
    if (objects.length > 0 && (doneInRange || laterCalls.some(doneLater))) continue
    return intent.text
  }
  return undefined
}

export { isStandingConstraint }

/**
 * What the agent was doing when the range ends: the plan's item in progress (current-step.ts
 * says when it still is), else the latest work request (requests.ts) with the proposal an
 * approval accepted, else the step current-step.ts found.
 */
function currentWork(facts: HandoverFacts, step: CurrentStep): string | undefined {
  if (facts.plan?.some((p) => p.status === 'in_progress')) return step.working
  const work = facts.requests?.inProgress
  if (work) return facts.requests!.approvedProposal ? `${facts.requests!.approvedProposal} (the agent's proposal, approved; asked: ${work.text})` : work.text
  return step.working
}

export type { ConversationEvent }
