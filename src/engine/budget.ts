/**
 * Compaction threshold (seed 004):
 *   threshold = floor((contextLimit − systemReserve − outputReserve − safetyBuffer) × thresholdPercent)
 * Defaults 2,000 / 4,000 / 5,000 / 0.80; each can be overridden per request and by environment.
 */
export interface ThresholdSettings {
  systemReserve: number
  outputReserve: number
  safetyBuffer: number
  /** Fraction (0, 1] of the available window at which compaction triggers. */
  thresholdPercent: number
}

export const DEFAULT_THRESHOLD_SETTINGS: ThresholdSettings = {
  systemReserve: 2_000,
  outputReserve: 4_000,
  safetyBuffer: 5_000,
  thresholdPercent: 0.8,
}

export function availableTokens(contextLimit: number, s: ThresholdSettings): number {
  return Math.max(0, contextLimit - s.systemReserve - s.outputReserve - s.safetyBuffer)
}

export function compactionThreshold(contextLimit: number, s: ThresholdSettings): number {
  return Math.floor(availableTokens(contextLimit, s) * s.thresholdPercent)
}
