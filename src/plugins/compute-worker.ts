/**
 * Entry of the compute pool's worker threads (src/plugins/compute-pool.ts): piscina calls
 * the default export once per task. The server's configuration arrives once, as the
 * pool's workerData. Built as its own file (dist/plugins/compute-worker.js, see the
 * build script), and loaded from source under tsx and tap.
 */
import { workerData } from 'piscina'
import type { Config } from '../config.ts'
import { runTask, type TaskName, type TaskOutcome } from '../services/compute-tasks.ts'

const config = (workerData as { config: Config }).config

export default function computeTask(message: { task: TaskName; input: unknown }): Promise<TaskOutcome> {
  return runTask(config, message.task, message.input)
}
