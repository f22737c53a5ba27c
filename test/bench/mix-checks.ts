/**
 * The end-of-run checks of the soak's workload (test/bench/mix.ts): the service's answers
 * and its database against the driver's model. Each returns what it found wrong; an empty
 * list is a pass.
 */
import { sql, type Kysely } from 'kysely'
import { sha1, type Request, type SessionState } from './mix.ts'

/** Through the API: counts, the window's arithmetic, the summary's state, the latest checkpoint. */
export async function checkSessionsApi(request: Request, sessions: SessionState[]): Promise<{ failures: string[]; messages: number; summaries: number; checkpoints: number }> {
  const failures: string[] = []
  let messages = 0
  let summaries = 0
  let checkpoints = 0
  for (const s of sessions) {
    for (const w of s.wrong) failures.push(`${s.id}: ${w}`)
    for (const u of s.unknown) failures.push(`${s.id}: outcome unknown: ${u}`)
    messages += s.acked.length
    checkpoints += s.compactsAcked
    if (s.acked.length > 0) {
      const r = await request('GET', `/sessions/${s.id}`)
      if (r.status !== 200) {
        failures.push(`${s.id}: GET session ${r.status}`)
        continue
      }
      const v = JSON.parse(r.text) as {
        messageCount: number
        windowMessages: number
        systemMessages: number
        evictedAwaitingSummary: number
        summarizedMessages: number
        summary: unknown
        update: unknown
      }
      if (v.messageCount !== s.acked.length) failures.push(`${s.id}: messageCount ${v.messageCount}, the driver got 2xx for ${s.acked.length}`)
      if (v.evictedAwaitingSummary !== 0) failures.push(`${s.id}: ${v.evictedAwaitingSummary} messages evicted awaiting summary`)
      if (v.update !== null) failures.push(`${s.id}: update still queued: ${JSON.stringify(v.update)}`)
      if (v.windowMessages + v.summarizedMessages + v.systemMessages !== v.messageCount)
        failures.push(`${s.id}: window ${v.windowMessages} + summarized ${v.summarizedMessages} + system ${v.systemMessages} != ${v.messageCount}`)
      if (v.summarizedMessages > 0 && v.summary === null) failures.push(`${s.id}: ${v.summarizedMessages} summarized messages but no summary`)
      const sr = await request('GET', `/sessions/${s.id}/summary`)
      const sv = JSON.parse(sr.text) as { stale: boolean; degraded: boolean; tokens: number; budget: number; version: number }
      if (sr.status !== 200 || sv.stale || sv.degraded || sv.tokens > sv.budget) failures.push(`${s.id}: summary ${sr.status} stale=${sv.stale} degraded=${sv.degraded} tokens ${sv.tokens}/${sv.budget}`)
      if (sv.version > 0) summaries++
    }
    if (s.compactsAcked + s.compactsUnknown > 0) {
      const r = await request('GET', `/sessions/${s.id}/checkpoints?limit=1`)
      // A 404: no session, so no checkpoint (a lost compaction that stored nothing, on a session never appended to).
      const latest = r.status === 200 ? ((JSON.parse(r.text) as { items: { checkpointNum: number }[] }).items[0]?.checkpointNum ?? 0) : r.status === 404 ? 0 : -1
      if (latest < s.compactsAcked || latest > s.compactsAcked + s.compactsUnknown)
        failures.push(`${s.id}: latest checkpoint ${latest} (${r.status}), the driver got 2xx for ${s.compactsAcked} compactions${s.compactsUnknown ? ` and lost ${s.compactsUnknown} answers` : ''}`)
    }
  }
  return { failures, messages, summaries, checkpoints }
}

/**
 * In the database, after the service stopped: seqs 1..N without a gap, each stored message
 * byte for byte the JSON the driver sent, in order; nothing left evicted; the queue empty;
 * no unfinished update; and no message folded into a summary twice (the finished updates'
 * folded seq ranges of a session never overlap).
 */
export async function checkSessionsDb(db: Kysely<any>, sessions: SessionState[], opts: { unfinishedRunsAllowed?: boolean } = {}): Promise<string[]> {
  const failures: string[] = []
  for (const s of sessions) {
    const rows = await sql<{ seq: number; raw: string; status: string }>`
      select seq, raw::text as raw, status from session_messages where session_id = ${s.id} order by seq`.execute(db)
    if (rows.rows.length !== s.acked.length) failures.push(`${s.id}: ${rows.rows.length} messages stored, ${s.acked.length} acknowledged`)
    const misplaced = rows.rows.findIndex((r, i) => Number(r.seq) !== i + 1 || sha1(r.raw) !== s.acked[i])
    if (misplaced >= 0) failures.push(`${s.id}: stored message ${misplaced + 1} (seq ${rows.rows[misplaced]!.seq}) is not the message sent at that position`)
    const evicted = rows.rows.filter((r) => r.status === 'evicted').map((r) => r.seq)
    if (evicted.length > 0) failures.push(`${s.id}: ${evicted.length} messages still evicted (seq ${evicted[0]}..${evicted.at(-1)})`)
    const runs = await sql<{ from: string; to: string }>`
      select folded_from_seq::text as "from", folded_to_seq::text as "to" from summary_update_runs
      where session_id = ${s.id} and finished_at is not null and folded_messages > 0
      order by folded_from_seq`.execute(db)
    for (let i = 1; i < runs.rows.length; i++) {
      if (Number(runs.rows[i]!.from) <= Number(runs.rows[i - 1]!.to)) failures.push(`${s.id}: seqs ${runs.rows[i]!.from}..${runs.rows[i - 1]!.to} folded twice`)
    }
  }
  const q = await sql<{ n: number }>`select count(*)::int as n from summary_update_queue`.execute(db)
  if (q.rows[0]!.n !== 0) failures.push(`summary_update_queue holds ${q.rows[0]!.n} entries`)
  if (!opts.unfinishedRunsAllowed) {
    const runs = await sql<{ n: number }>`select count(*)::int as n from summary_update_runs where finished_at is null`.execute(db)
    if (runs.rows[0]!.n !== 0) failures.push(`${runs.rows[0]!.n} summary_update_runs unfinished`)
  }
  return failures
}
