/**
 * Seed 004's summary prompt, as pure functions.
 *
 * The data sections (previous summary, original task, messages) are always present;
 * the caller's instructions either replace the default section template or are
 * appended to it. Map-reduce (summarizers/llm.ts) uses the same prompt with a `stage`:
 * a `partial` call summarises one chunk of the conversation, a `combine` call merges
 * partial summaries (plus the previous summary) into one.
 */
import type { CanonicalMessage, ToolResultPart } from '../messages/canonical.ts'
import { summaryHeader } from './summary-format.ts'

export const SUMMARY_SYSTEM_PROMPT = `You are summarizing a coding agent's conversation history.
Your summary will replace the compacted messages: it is a handover to an engineer who
continues the work without the conversation, so preserve ALL information needed to
continue the task successfully — what was asked, what was decided and why, what was
done, what was learned, what failed, and what comes next.

CRITICAL: Be thorough but concise. Missing information cannot be recovered.`

export type SummaryStage = { kind: 'single' } | { kind: 'partial'; part: number; parts: number } | { kind: 'combine' }

export interface SummaryPromptInput {
  /** Output of formatMessagesForSummary, or joined partial summaries for `combine`. */
  formattedMessages: string
  previousSummary?: string
  originalTask: string
  round: number
  /** Length the prompt asks for (keep it under the hard max_tokens cap). */
  maxTokens: number
  instructions?: string
  instructionsMode: 'replace' | 'append'
  /** What to give room to; added whatever instructionsMode says. */
  focus?: string
  /** Ask for failing commands and error messages verbatim. */
  preserveErrorDetails?: boolean
  /** Default `single`. */
  stage?: SummaryStage
  /** Facts compactd extracted from the messages (files and their fates, failures, instructions, plan): the summary must keep them. */
  extractedFacts?: string
}

export interface SummaryPrompt {
  system: string
  prompt: string
}

/**
 * The handover's sections: what a frontier model's own compaction holds (Claude Code's
 * Primary Request and Intent, Key Technical Concepts, Files and Code, Errors and fixes,
 * All user messages, Pending Tasks, Current Work, Next Step; issue 22), under titles
 * summary-format.ts reads (Original Task, User Requests, Key Technical Decisions,
 * Completed Work, Errors & Resolutions, Pending Work, Current State) plus Findings and
 * Next Step, which a later round folds in as knowledge and pending work. The rules
 * summary's facts are appended after the model's text when it dropped them (facts-check.ts).
 */
export const HANDOVER_SECTIONS = ['Original Task', 'User Requests and Constraints', 'Key Technical Decisions', 'Completed Work', 'Findings', 'Errors & Resolutions', 'Pending Work', 'Current State', 'Next Step'] as const

function defaultInstructions(round: number): string {
  return `## Instructions
Create a summary with these EXACT sections:

${summaryHeader(round)}

### Original Task
[The user's request verbatim, then its intent: what they want achieved, and why. When they made several requests, the one in progress first, the earlier ones after it with their outcome]

### User Requests and Constraints
- ["every user message that set a constraint, corrected the agent, approved or rejected an idea, or changed the direction, verbatim"]
- [requirements taken from a document or brief the agent read on the user's behalf]

### Key Technical Decisions
- [each decision with its reason: "chose X because Y"; what was rejected and why]
- [key technical concepts the work relies on: frameworks, patterns, conventions, dependencies installed]
- [a design or plan the user and the agent converged on: whole, with its parts and weights]

### Completed Work
| File/Component | Action | Description |
|----------------|--------|-------------|
[each file created, edited or deleted: what changed and why, with the key code (a signature, a value) in backticks; commits with hash and message, pushes, PRs]

### Findings
- [what was learned by reading, searching or running: how the code behaves, where a value or a record lives, values, scores, rankings, prices and versions found or computed, corrections (old → new) — each with its evidence (file:line, command)]

### Errors & Resolutions
- [each error, verbatim, → its fix, or "unresolved"; attempts that failed, and why]

### Pending Work
- [ ] [Remaining items as checklist]

### Current State
- Working on: [the step in progress when the conversation ends; "nothing in progress" when the last request was completed]
- Last completed: [most recent accomplishment]

### Next Step
- [the next action, in line with the user's latest request: quote that request]`
}

function stageNote(stage: SummaryStage): string | undefined {
  switch (stage.kind) {
    case 'single':
      return undefined
    case 'partial':
      return `The conversation is too long for one request: the messages below are part ${stage.part} of ${stage.parts}, in order. Summarize only this part; the parts will be merged afterwards.`
    case 'combine':
      return 'The messages were summarized in consecutive parts, given below in order. Merge them into ONE summary: later parts supersede earlier ones where they conflict, and nothing is listed twice.'
  }
}

export function buildSummaryPrompt(input: SummaryPromptInput): SummaryPrompt {
  const stage = input.stage ?? { kind: 'single' }
  const hasPrevious = input.previousSummary !== undefined && input.previousSummary.trim() !== ''
  const custom = input.instructions?.trim()
  const replace = input.instructionsMode === 'replace' && custom !== undefined && custom !== ''

  const sections: string[] = []
  // In map-reduce the previous summary joins at a combine step, not in every call.
  const noPrevious = stage.kind === 'single' ? 'None - this is the first compaction round.' : 'None in this step (earlier context is merged separately).'
  sections.push(`## Previous Summary\n${hasPrevious ? input.previousSummary!.trim() : noPrevious}`)
  sections.push(`## Original User Task\n${input.originalTask}`)
  const heading = stage.kind === 'combine' ? '## Partial Summaries to Combine' : '## Messages to Summarize'
  const note = stageNote(stage)
  sections.push(`${heading}\n${note ? `${note}\n\n` : ''}${input.formattedMessages.trim() || '(no messages)'}`)
  if (input.extractedFacts?.trim() && stage.kind !== 'partial') {
    sections.push(`## Extracted Facts\nExtracted mechanically from the whole range: keep every file with what happened to it, every failure with its error, every user instruction and every open plan item.\n\n${input.extractedFacts.trim()}`)
  }

  if (replace) {
    sections.push(`## Instructions\n${custom}`)
  } else {
    sections.push(defaultInstructions(input.round))
    if (custom) sections.push(`## Additional focus\n${custom}`)
  }
  if (input.focus?.trim()) {
    sections.push(`## Focus\nGive the most room to what concerns: ${input.focus.trim()}\nKeep every other section as the guidance above asks; this adds, it does not replace.`)
  }

  const constraints = [
    `- Maximum ${input.maxTokens} tokens`,
    '- Use tables and bullet points for density',
    '- Include exact file paths',
    '- No code blocks unless absolutely critical',
    // The pipeline parses the result: a header and the task section are required whatever the instructions.
    `- Start with the line "${summaryHeader(input.round)}" and keep a "### Original Task" section with the task verbatim`,
  ]
  if (input.preserveErrorDetails) constraints.push('- Quote failing commands, test names and error messages exactly')
  if (hasPrevious) {
    constraints.push(
      '- The Previous Summary covers earlier rounds: INTEGRATE (don\'t duplicate) its content — merge it into the sections above, keep every fact that still matters, update what changed, and do not copy it as a separate block',
    )
    if (stage.kind !== 'partial' && input.round > 1) {
      constraints.push(`- End with: "This summary incorporates context from ${input.round - 1} previous compaction round${input.round - 1 === 1 ? '' : 's'}."`)
    }
  } else {
    constraints.push('- If previous summary exists, INTEGRATE (don\'t duplicate) its content')
  }
  sections.push(`## Constraints\n${constraints.join('\n')}`)

  return { system: SUMMARY_SYSTEM_PROMPT, prompt: sections.join('\n\n') }
}

// ---------------------------------------------------------------------------
// Messages as text
// ---------------------------------------------------------------------------

export const MESSAGE_SEPARATOR = '\n\n---\n\n'

/** Keep the start (what was asked/run) and the end (results, errors) of long content. */
export function truncateMiddle(text: string, limit: number): string {
  if (limit <= 0 || text.length <= limit) return text
  const marker = `\n[... ${text.length - limit} characters truncated ...]\n`
  const room = Math.max(0, limit - marker.length)
  const head = Math.ceil(room * 0.6)
  const tail = room - head
  return text.slice(0, head) + marker + (tail > 0 ? text.slice(text.length - tail) : '')
}

function resultLabel(part: ToolResultPart, names: Map<string, string>): string {
  const name = part.name ?? names.get(part.callId) ?? 'tool'
  return `${part.isError ? 'error result' : 'result'} of ${name}`
}

/**
 * Each message rendered on its own: `[i] ROLE:` then its text, tool calls and results.
 * Reasoning is left out (it is long, and its conclusions are in the text and calls).
 */
export function renderMessagesForSummary(messages: readonly CanonicalMessage[], perMessageCharLimit: number): string[] {
  const names = new Map<string, string>()
  return messages.map((message, i) => {
    const out: string[] = []
    for (const part of message.parts) {
      switch (part.type) {
        case 'text':
        case 'opaque':
          if (part.text.trim()) out.push(part.text)
          break
        case 'tool-call':
          names.set(part.id, part.name)
          out.push(`[tool call ${part.name}(${part.argsText})]`)
          break
        case 'tool-result':
          out.push(`[${resultLabel(part, names)}: ${part.text}]`)
          break
        case 'image':
          out.push('[image]')
          break
        case 'reasoning':
          break
      }
    }
    const who = message.name ? `${message.role.toUpperCase()} (${message.name})` : message.role.toUpperCase()
    return `[${i}] ${who}:\n${truncateMiddle(out.join('\n'), perMessageCharLimit)}`
  })
}

export function formatMessagesForSummary(messages: readonly CanonicalMessage[], perMessageCharLimit: number): string {
  return renderMessagesForSummary(messages, perMessageCharLimit).join(MESSAGE_SEPARATOR)
}
