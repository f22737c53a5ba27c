/**
 * The llm strategy in the compute pool (issue 18). A provider client cannot cross into a
 * worker thread, so the thread gets a stand-in: a SummarizerClient whose counting and
 * pricing run where it is (pure), and whose `complete` posts the prompt over a
 * MessagePort to the event loop, where the real client calls the provider. Counting,
 * splitting, fact checks and assembly all run on the thread; only the provider call awaits
 * on the main thread.
 *
 * The main side reports when a call is in flight (the pool does not charge a task's
 * deadline for the provider's time), and aborts the calls when the task ends.
 */
import type { MessagePort } from 'node:worker_threads'
import { SummarizerError, type CompletionRequest, type CompletionResult, type SummarizerClient } from '../engine/compaction/types.ts'

/** What the thread needs to build its stand-in: the client's identity and window (counting and pricing are rebuilt there). */
export interface BridgedSummarizer {
  provider: string
  model: string
  contextLimit: number
}

type Call = { id: number; system: string; prompt: string; maxOutputTokens: number } | { id: number; abort: true }
type Reply = { id: number; ok: true; result: CompletionResult } | { id: number; ok: false; kind: string; message: string }

export function bridgedSummarizer(client: SummarizerClient): BridgedSummarizer {
  return { provider: client.provider, model: client.model, contextLimit: client.contextLimit }
}

/**
 * Main thread: answers the thread's completion calls with `client`. `onInFlight(n)` hears
 * the number of calls in flight after each change. Returns a function that aborts the
 * calls in flight and closes the port.
 */
export function serveSummarizer(port: MessagePort, client: SummarizerClient, onInFlight: (calls: number) => void): () => void {
  const calls = new Map<number, AbortController>()
  port.on('message', (call: Call) => {
    if ('abort' in call) {
      calls.get(call.id)?.abort()
      return
    }
    const controller = new AbortController()
    calls.set(call.id, controller)
    onInFlight(calls.size)
    client
      .complete({ system: call.system, prompt: call.prompt, maxOutputTokens: call.maxOutputTokens, signal: controller.signal })
      .then(
        (result): Reply => ({ id: call.id, ok: true, result }),
        (err: unknown): Reply => ({
          id: call.id,
          ok: false,
          kind: err instanceof SummarizerError ? err.kind : 'unavailable',
          message: err instanceof Error ? err.message : String(err),
        }),
      )
      .then((reply) => {
        if (!calls.delete(call.id)) return // aborted and closed
        onInFlight(calls.size)
        port.postMessage(reply)
      })
  })
  return () => {
    for (const controller of calls.values()) controller.abort()
    calls.clear()
    onInFlight(0)
    port.close()
  }
}

/** Worker thread: the stand-in client over `port`; `local` supplies counting and pricing. */
export function remoteSummarizerClient(
  port: MessagePort,
  identity: BridgedSummarizer,
  local: Pick<SummarizerClient, 'countTokens' | 'costUsd'>,
): SummarizerClient & { close(): void } {
  let nextId = 0
  const pending = new Map<number, { resolve(r: CompletionResult): void; reject(e: unknown): void }>()
  port.on('message', (reply: Reply) => {
    const waiter = pending.get(reply.id)
    if (!waiter) return
    pending.delete(reply.id)
    if (reply.ok) waiter.resolve(reply.result)
    else waiter.reject(new SummarizerError(reply.kind, reply.message))
  })
  return {
    ...identity,
    countTokens: local.countTokens,
    costUsd: local.costUsd,
    complete(req: CompletionRequest): Promise<CompletionResult> {
      const id = nextId++
      return new Promise<CompletionResult>((resolve, reject) => {
        if (req.signal?.aborted) return reject(new SummarizerError('aborted', 'the summary request was cancelled'))
        pending.set(id, { resolve, reject })
        req.signal?.addEventListener(
          'abort',
          () => {
            if (!pending.delete(id)) return
            port.postMessage({ id, abort: true } satisfies Call)
            reject(new SummarizerError('aborted', 'the summary request was cancelled'))
          },
          { once: true },
        )
        port.postMessage({ id, system: req.system, prompt: req.prompt, maxOutputTokens: req.maxOutputTokens } satisfies Call)
      })
    },
    close() {
      for (const waiter of pending.values()) waiter.reject(new SummarizerError('unavailable', 'the summarizer bridge closed'))
      pending.clear()
      port.close()
    },
  }
}
