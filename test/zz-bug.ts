import fs from 'node:fs'
import { compact } from '../src/engine/compaction/compact.ts'
import { parseConversation } from '../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../src/engine/tokens/count.ts'
import { DEFAULT_COMPACT_OPTIONS } from '../src/engine/compaction/types.ts'
import { computeUnits } from '../src/engine/compaction/integrity.ts'
const f = process.argv[2]!
const pctArg = Number(process.argv[3] ?? 25)
const d = JSON.parse(fs.readFileSync(`/work/shared/fixtures/conversations/${f}.json`, 'utf8'))
const conv = parseConversation(d.messages, { format: 'openai' })
const counter = tokenizerCounter('o200k_base')
const before = countConversation(conv.messages, counter).totalTokens
console.log('units', JSON.stringify(computeUnits(conv.messages).slice(0, 8)), 'n', conv.messages.length)
try {
  const r = await compact({ messages: conv.messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, strategy: ['mask', 'rules'], format: 'openai', targetTokens: Math.floor(before * pctArg / 100), thresholdTokens: 0 } })
  console.log(JSON.stringify(r.plan), r.event)
  fs.writeFileSync('/tmp/out.json', JSON.stringify(r.messages.map(m => m.raw), null, 1))
} catch (e) { console.log(e) }
