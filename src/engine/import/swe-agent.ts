/**
 * SWE-agent and mini-swe-agent trajectories (JSON documents) → AI SDK messages.
 *
 * - SWE-agent `.traj`: `history` holds the model's messages (system, user, assistant with
 *   OpenAI `tool_calls`, tool observations answering `tool_call_ids`); `thought`,
 *   `action`, `agent` and `message_type` are SWE-agent's bookkeeping and dropped. Older
 *   trajectories without `history` are read from `trajectory` steps (response, then the
 *   observation as the next user message).
 * - mini-swe-agent `traj.json`: `messages` in OpenAI chat form; `reasoning_content`
 *   becomes a reasoning part; the final `exit` message (the run's exit status) is skipped.
 *
 * Neither agent compacts its context, so these logs have no compaction events.
 */
import { isRecord, type JsonObject } from '../messages/adapter.ts'
import { CallTracker, LogBuilder, aiReasoning, aiText, aiToolCall, aiToolResult, appendParts, inputFromArgs, str, textOf, type LogEntry, type ParsedLog } from './build.ts'

/** Whether a document is a SWE-agent or mini-swe-agent trajectory. */
export function isSweTrajectory(doc: unknown): boolean {
  if (!isRecord(doc)) return false
  if (Array.isArray(doc.history) || (Array.isArray(doc.trajectory) && !Array.isArray(doc.messages))) return true
  if (!Array.isArray(doc.messages)) return false
  if (typeof doc.trajectory_format === 'string' && doc.trajectory_format.startsWith('mini-swe-agent')) return true
  return isRecord(doc.info) && (isRecord(doc.info.config) || 'exit_status' in doc.info || 'model_stats' in doc.info)
}

export function parseSweAgent(doc: JsonObject): ParsedLog {
  const b = new LogBuilder('ai-sdk')
  const mini = !Array.isArray(doc.history) && Array.isArray(doc.messages)
  b.session.agent = mini ? 'mini-swe-agent' : 'swe-agent'
  const info = isRecord(doc.info) ? doc.info : {}
  if (typeof doc.instance_id === 'string') b.session.id = doc.instance_id
  if (typeof info.mini_version === 'string') b.session.agentVersion = info.mini_version
  else if (typeof info.swe_agent_version === 'string') b.session.agentVersion = info.swe_agent_version
  const config = isRecord(info.config) ? info.config : isRecord(doc.replay_config) ? doc.replay_config : undefined
  const model = config && isRecord(config.model) ? (str(config.model.model_name) ?? str(config.model.name)) : undefined
  if (model) b.session.model = model

  const list = mini ? (doc.messages as unknown[]) : Array.isArray(doc.history) ? doc.history : undefined
  if (!list) {
    steps(b, doc.trajectory as unknown[])
    return b.result()
  }
  const field = mini ? 'messages' : 'history'
  const calls = new CallTracker()
  list.forEach((m, i) => {
    const entry: LogEntry = { value: m, line: null, path: `${field}[${i}]` }
    if (!isRecord(m)) return b.broken(entry, `expected a message object, got ${JSON.stringify(m)?.slice(0, 40)}`)
    const text = textOf(m.content)
    switch (m.role) {
      case 'system':
        if (text) b.push({ role: 'system', content: text }, entry)
        return
      case 'user':
        if (text) b.push({ role: 'user', content: [aiText(text)] }, entry)
        return
      case 'assistant': {
        const ids = new Set<string>()
        const parts: JsonObject[] = []
        const reasoning = str(m.reasoning_content)
        if (reasoning) parts.push(aiReasoning(reasoning))
        if (text) parts.push(aiText(text))
        for (const call of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
          if (!isRecord(call)) continue
          const fn = isRecord(call.function) ? call.function : call
          const name = str(fn.name)
          if (!name) continue
          const given = str(call.id)
          parts.push(aiToolCall(calls.call(given ?? `name:${name}`, name, ids, given), name, inputFromArgs(fn.arguments)))
        }
        if (parts.length > 0) b.push({ role: 'assistant', content: parts }, entry)
        else b.skipped++
        return
      }
      case 'tool': {
        const keys = Array.isArray(m.tool_call_ids) ? m.tool_call_ids.filter((x): x is string => typeof x === 'string') : typeof m.tool_call_id === 'string' ? [m.tool_call_id] : []
        if (keys.length === 0) return b.broken(entry, 'a tool message without tool_call_id(s)')
        const results = keys.map((key) => {
          const call = calls.result(key)
          return aiToolResult(call?.id ?? key, call?.name ?? str(m.name) ?? 'unknown_tool', text)
        })
        appendParts(b, 'tool', results, entry, true)
        return
      }
      case 'exit':
        b.skipped++
        return
      default:
        return b.unknown(entry, `a message with unknown role ${JSON.stringify(m.role)}`)
    }
  })
  return b.result()
}

/** Trajectories without `history`: each step's response, then its observation. */
function steps(b: LogBuilder, trajectory: unknown[]): void {
  trajectory.forEach((step, i) => {
    const entry: LogEntry = { value: step, line: null, path: `trajectory[${i}]` }
    if (!isRecord(step)) return b.broken(entry, 'expected a step object')
    const response = str(step.response) ?? [str(step.thought), str(step.action)].filter(Boolean).join('\n')
    if (response) b.push({ role: 'assistant', content: [aiText(response)] }, entry)
    const observation = str(step.observation)
    if (observation) b.push({ role: 'user', content: [aiText(observation)] }, entry)
  })
}
