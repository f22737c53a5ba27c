/**
 * A compute-pool thread entry for tests of scheduling (test/plugins/compute-pool/deadlines.test.ts):
 * each task keeps its thread busy for `input.ms` milliseconds of CPU, as a pathological
 * compaction would, and answers with what it was given. Loaded by piscina in place of
 * src/plugins/compute-worker.ts (ComputePool's `filename`).
 */
import { threadId } from 'node:worker_threads'

export default async function slowTask(message: { task: string; input: { ms: number; label?: string } }): Promise<unknown> {
  const until = performance.now() + message.input.ms
  while (performance.now() < until) {
    // Busy: the thread can only be stopped from outside.
  }
  return { ok: true, value: { label: message.input.label, thread: threadId, finishedAt: Date.now() } }
}
