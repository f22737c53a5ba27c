/**
 * The preservation contract of /compact (issue 24): `pin` (message indices kept verbatim,
 * byte for byte, with their tool pairs) and `preserve` (strings that must survive). Checked
 * deterministically on the output, in the caller's format: what could not be kept is a
 * 422 listing it (`unkept`), never a silent loss. A preserved string the input does not
 * hold, or a pin past the end, is the caller's mistake: a 400 naming it.
 */
import { ApiError, type ErrorIssue } from '../../errors.ts'
import type { CompactRequest, ComputedCompaction } from './compute.ts'

export interface ContractRequest {
  messages: unknown[]
  system?: unknown
  pin?: number[]
  preserve?: string[]
}

/** What the response reports the contract checked. */
export interface ContractReport {
  pinned: number[]
  preserved: string[]
}

/** A string as it appears inside JSON text (escaped), so that text and JSON are searched alike. */
export function asJson(text: string): string {
  return JSON.stringify(text).slice(1, -1)
}

function jsonOf(messages: readonly unknown[], system: unknown): string[] {
  return [...messages.map((m) => JSON.stringify(m) ?? ''), JSON.stringify(system ?? null)]
}

/** 400s for pins past the end and preserved strings the input does not hold. */
export function refuseImpossibleContract(req: ContractRequest): void {
  const issues: ErrorIssue[] = []
  req.pin?.forEach((i, k) => {
    if (i >= req.messages.length) issues.push({ path: `body.pin[${k}]`, message: `message ${i} does not exist (the conversation has ${req.messages.length} messages, 0-based)` })
  })
  if (req.preserve?.length) {
    const input = jsonOf(req.messages, req.system)
    req.preserve.forEach((text, k) => {
      const needle = asJson(text)
      if (!input.some((j) => j.includes(needle))) issues.push({ path: `body.preserve[${k}]`, message: `${JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)} is not in the conversation, so it cannot be preserved` })
    })
  }
  if (issues.length) throw new ApiError(400, 'validation_error', issues.map((i) => `${i.path}: ${i.message}`).join('; '), issues)
}

/** The pins and strings the output does not hold. */
export function unkeptOf(req: ContractRequest, output: { messages: readonly unknown[]; system?: unknown }): { pin: number[]; preserve: string[] } {
  const out = jsonOf(output.messages, output.system)
  const outSet = new Set(out)
  const pin = (req.pin ?? []).filter((i) => !outSet.has(JSON.stringify(req.messages[i]) ?? ''))
  const preserve = (req.preserve ?? []).filter((text) => !out.some((j) => j.includes(asJson(text))))
  return { pin, preserve }
}

/**
 * Pins that carry the strings still missing: for each, the last message holding it (the
 * most recent statement of a rule or a value), so a second pass keeps it verbatim.
 */
export function pinsFor(req: ContractRequest, missing: readonly string[]): number[] {
  const texts = req.messages.map((m) => JSON.stringify(m) ?? '')
  const out = new Set(req.pin ?? [])
  for (const text of missing) {
    const needle = asJson(text)
    for (let i = texts.length - 1; i >= 0; i--) {
      if (texts[i]!.includes(needle)) {
        out.add(i)
        break
      }
    }
  }
  return [...out].sort((a, b) => a - b)
}

/** The 422 for a contract the budget could not hold. */
export function unkeptError(unkept: { pin: number[]; preserve: string[] }, targetTokens: number): ApiError {
  const parts = [unkept.pin.length ? `pinned messages ${unkept.pin.join(', ')}` : '', unkept.preserve.length ? `preserved strings ${unkept.preserve.map((s) => JSON.stringify(s)).join(', ')}` : ''].filter(Boolean)
  return new ApiError(422, 'contract_unkept', `the compaction to ${targetTokens} tokens cannot keep ${parts.join(' and ')}; raise targetTokens or pin less (nothing was stored)`, undefined, { unkept })
}

/**
 * A compaction that keeps the pins and preserved strings, or a 422 listing what it could
 * not keep. A string the summary lost gets a second pass with the last message holding it
 * pinned; a budget the pins make unreachable is a 422 with every pin and string unkept.
 */
export async function keepingContract(input: CompactRequest, run: (request: CompactRequest) => Promise<ComputedCompaction>): Promise<ComputedCompaction> {
  const all = { pin: input.pin ?? [], preserve: input.preserve ?? [] }
  const attempt = async (request: CompactRequest): Promise<ComputedCompaction> => {
    try {
      return await run(request)
    } catch (err) {
      const budget = (err as { code?: unknown; details?: { targetTokens?: unknown } }).code === 'budget_unreachable'
      if (budget) throw unkeptError(all, Number((err as { details?: { targetTokens?: unknown } }).details?.targetTokens ?? input.targetTokens ?? 0))
      throw err
    }
  }
  let computed = await attempt(input)
  if (!computed.response.compacted) return computed
  let unkept = unkeptOf(input, computed.response)
  if (unkept.preserve.length) {
    computed = await attempt({ ...input, pin: pinsFor(input, unkept.preserve) })
    unkept = computed.response.compacted ? unkeptOf(input, computed.response) : { pin: [], preserve: [] }
  }
  if (unkept.pin.length || unkept.preserve.length) throw unkeptError(unkept, computed.response.targetTokens)
  return computed
}
