/**
 * The file piscina loads in each compute thread; it imports the real entry
 * (workerData.entryUrl: compute-worker.js built, a bundle of compute-worker.ts from source).
 *
 * Why CommonJS: piscina loads a worker file with require() first. On Node 20.19+ a
 * require() of an ES module runs the synchronous require(esm) path, and a thread
 * terminated in the middle of it (a pool closed while its threads still start, as at
 * shutdown right after start-up) aborts the whole process with a fatal V8 error
 * ("v8::Module::IsGraphAsync must be used on an instantiated module", SIGABRT). A
 * CommonJS file is required without that path, and the ES module is loaded with import(),
 * which a termination stops cleanly. Reproduced and checked in test/plugins/compute-pool.test.ts.
 */
'use strict'
const { workerData } = require('node:worker_threads')

// Loading starts as the thread starts; a task waits for it. A failure is the task's error.
const loading = import(workerData.entryUrl).then((m) => m.default)
loading.catch(() => {})

module.exports = async function computeTask(message) {
  return (await loading)(message)
}
