import { estimateTextTokens } from '../src/engine/tokens/heuristic.ts'
import { loadFixtureConversations } from './eval/token-corpora.ts'
const texts: string[] = JSON.parse(JSON.stringify((loadFixtureConversations('/work/shared/fixtures/conversations') ?? []).flatMap((c) => c.messages.flat())))
let s = 0
const R = Number(process.argv[2] ?? 10)
const t0 = performance.now()
for (let r = 0; r < R; r++) for (const t of texts) s += estimateTextTokens(t)
console.log(s, (performance.now() - t0) / R, 'ms/pass')
