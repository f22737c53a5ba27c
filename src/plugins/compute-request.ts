/**
 * What a route hands the compute pool about its request: the body's size, and a signal
 * that fires when the client goes away.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'

/** A request body's size from its Content-Length; undefined (chunked): the pool treats it as large. */
export function contentLength(req: FastifyRequest): number | undefined {
  const header = req.headers['content-length']
  const n = Number(header)
  return header !== undefined && Number.isFinite(n) ? n : undefined
}

/**
 * A signal that fires when the client goes away before the reply (a queued task then
 * leaves the queue, a running one has its thread replaced), made on first call of signal(): a task run inline never calls it, so
 * a small request pays for no AbortController and no listener. Call done() once the reply
 * is decided.
 */
export function clientGoneSignal(reply: FastifyReply): { signal(): AbortSignal; done(): void } {
  let controller: AbortController | undefined
  let onClose: (() => void) | undefined
  return {
    signal() {
      if (!controller) {
        const made = (controller = new AbortController())
        onClose = () => {
          if (!reply.raw.writableEnded) made.abort()
        }
        reply.raw.once('close', onClose)
      }
      return controller.signal
    },
    done() {
      if (onClose) reply.raw.off('close', onClose)
    },
  }
}

