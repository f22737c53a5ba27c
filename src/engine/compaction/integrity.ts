/** Moved to conversation/pairing.ts; this re-export keeps older importers compiling until they switch. */
export * from '../conversation/pairing.ts'
