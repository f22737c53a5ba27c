/**
 * One digest per tool result, however many steps read it: masking writes it into the
 * placeholder, the action log into its line. Keyed by the result part object (the same
 * object for every step of one compaction), so nothing outlives the request.
 */
import type { ToolResultPart } from '../messages/canonical.ts'
import { compactArgs } from '../conversation/segments.ts'
import { digestToolCall, type ToolDigest } from './tools.ts'

const cache = new WeakMap<ToolResultPart, { preserve: boolean; digest: ToolDigest }>()

/** The digest of a call and its result (stateless: no script memory, unlike the handover's tracker). */
export function digestOf(name: string, argsText: string, result: ToolResultPart | undefined, preserveErrorDetails: boolean): ToolDigest {
  if (!result) return digestToolCall(name, compactArgs(argsText), '', false, preserveErrorDetails)
  const hit = cache.get(result)
  if (hit && hit.preserve === preserveErrorDetails) return hit.digest
  const digest = digestToolCall(name, compactArgs(argsText), result.text, result.isError === true, preserveErrorDetails)
  cache.set(result, { preserve: preserveErrorDetails, digest })
  return digest
}
