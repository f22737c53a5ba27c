import fs from 'node:fs'
import { compact } from '../src/engine/compaction/compact.ts'
import { parseConversation } from '../src/engine/messages/index.ts'
import { messageText } from '../src/engine/messages/canonical.ts'
import { countConversation, tokenizerCounter } from '../src/engine/tokens/count.ts'
import { DEFAULT_COMPACT_OPTIONS } from '../src/engine/compaction/types.ts'
import { factsOf, survives, renderForSearch } from './eval/quality.ts'
const [f, pctArg] = [process.argv[2]!, Number(process.argv[3] ?? 25)]
const d = JSON.parse(fs.readFileSync(`/work/shared/fixtures/conversations/${f}.json`, 'utf8'))
const conv = parseConversation(d.messages, { format: 'openai' })
const counter = tokenizerCounter('o200k_base')
const before = countConversation(conv.messages, counter).totalTokens
const r = await compact({ messages: conv.messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, strategy: ['mask', 'rules'], format: 'openai', targetTokens: Math.floor(before * pctArg / 100), thresholdTokens: 0 } })
const idx = new Set<number>(); for (const p of r.plan) if (p.action !== 'keep') for (let i = p.from; i <= p.to; i++) idx.add(i)
const norm = (s: string) => s.replace(/\s+/g, ' ').trim()
const rr = r.messages.map(renderForSearch); const outText = norm(rr.join('\n')); const outLines = rr.flatMap((t) => t.split('\n')).map(norm)
const lost = factsOf(conv.messages, idx).filter((x) => !survives({ ...x, needles: x.needles.map(norm) }, outText, outLines))
for (const l of lost.slice(0, 25)) console.log(l.kind, JSON.stringify(l.needles))
console.log('lost', lost.length)
fs.writeFileSync('/tmp/out.txt', r.messages.map((m) => `[${m.role}] ${messageText(m)}`).join('\n---\n'))
