// Scratch benchmark (to be deleted). Usage: npx tsx test/zz-scratch-bench.ts [rounds]
import { readFileSync } from 'node:fs'
import { estimateTextTokens as newEst } from '../src/engine/tokens/heuristic.ts'
import { estimateTextTokens as oldEst } from '/tmp/hb/orig.ts'
import { syntheticConversation } from './bench/conversation.ts'
import { generateCorpora, loadFixtureConversations } from './eval/token-corpora.ts'

const convJson = JSON.stringify(syntheticConversation(20))
function convTexts(): string[] {
  const msgs = JSON.parse(convJson) as any[]
  const out: string[] = []
  for (const m of msgs) {
    if (typeof m.content === 'string') out.push(m.content)
    for (const tc of m.tool_calls ?? []) out.push(tc.function.arguments)
  }
  return out
}
// Fixture texts: re-parse so strings come from JSON.parse, as in the server.
const fixtureTexts: string[] = JSON.parse(JSON.stringify((loadFixtureConversations() ?? []).flatMap((c) => c.messages.flat())))
const corpusTexts: string[] = JSON.parse(JSON.stringify(generateCorpora().flatMap((c) => c.samples)))
const chars = (a: string[]) => a.reduce((s, t) => s + t.length, 0)

// --- equivalence check ---
function check(label: string, texts: string[]) {
  let diff = 0, dOld = 0, dNew = 0
  for (const t of texts) {
    const a = oldEst(t), b = newEst(t)
    dOld += a; dNew += b
    if (a !== b) { diff++; if (diff <= 5) console.log(`  DIFF ${label}: ${a} vs ${b}: ${JSON.stringify(t.slice(0, 80))}`) }
  }
  console.log(`${label}: ${texts.length} texts, ${diff} differ, old total ${dOld}, new total ${dNew}`)
}
check('conversation', convTexts())
check('fixtures', fixtureTexts)
check('corpora', corpusTexts)
// fuzz: random strings from a mixed alphabet
{
  let seed = 12345
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296)
  const alpha = ['a','b','z','A','Z','0','9',' ',' ',' ','\n','\r','\t','.',',','-','_','/','+','=','(',')','{','}','"','\\','n','u','\\u00e9','é','ü','\u0301','中','日','カ','한','д','α','ع','ש','क','─','→','😀','\u00a0','\u3000','、','！','Ａ','\uFE0F','~','|',':','#','x','y','q','W','3','7']
  const texts: string[] = []
  for (let k = 0; k < 30000; k++) {
    const len = 1 + Math.floor(rnd() * 60)
    let s = ''
    for (let i = 0; i < len; i++) {
      if (rnd() < 0.4) s += 'abcdefghijklmnopqrstuvwxyz'[Math.floor(rnd() * 26)]
      else s += alpha[Math.floor(rnd() * alpha.length)]
    }
    texts.push(s)
  }
  // all single chars + pairs of interesting chars
  for (let c = 0; c < 0x10000; c += 1) texts.push(String.fromCharCode(c), 'a' + String.fromCharCode(c) + 'b', ' ' + String.fromCharCode(c) + String.fromCharCode(c) + '  x')
  check('fuzz', texts)
}

// --- speed ---
type Est = (s: string) => number
function timeIt(est: Est, getTexts: () => string[], minMs: number): number {
  let bytes = 0, sink = 0
  let el = 0
  do {
    const texts = getTexts()
    const t0 = process.cpuUsage()
    for (let i = 0; i < texts.length; i++) sink += est(texts[i])
    el += process.cpuUsage(t0).user / 1000
    bytes += utf8(texts)
  } while (el < minMs)
  if (sink === 42) console.log('!')
  return bytes / 1e6 / (el / 1000) // MB (UTF-8) / s
}
const utf8Cache = new WeakMap<string[], number>()
let convBytes = -1
function utf8(texts: string[]): number {
  let b = utf8Cache.get(texts)
  if (b === undefined) {
    if (texts.length === 29 && convBytes >= 0) return convBytes
    b = texts.reduce((s, t) => s + Buffer.byteLength(t, 'utf8'), 0)
    utf8Cache.set(texts, b)
    if (texts.length === 29) convBytes = b
  }
  return b
}
const rounds = Number(process.argv[2] ?? 7)
const roundMs = Number(process.argv[3] ?? 250)
const inputs: [string, () => string[]][] = [
  ['conversation(20) JSON.parse', convTexts],
  ['fixtures', () => fixtureTexts],
  ['corpora', () => corpusTexts],
]
console.log(`sizes: conv ${chars(convTexts())} chars, fixtures ${chars(fixtureTexts)}, corpora ${chars(corpusTexts)}`)
const med = (a: number[]) => { const b = [...a].sort((x, y) => x - y); return b[b.length >> 1] }
// warm-up
for (const [, g] of inputs) { timeIt(oldEst, g, 300); timeIt(newEst, g, 300) }
for (const [name, g] of inputs) {
  const o: number[] = [], nn: number[] = []
  for (let r = 0; r < rounds; r++) { o.push(timeIt(oldEst, g, roundMs)); nn.push(timeIt(newEst, g, roundMs)) }
  console.log(`${name.padEnd(30)} old ${med(o).toFixed(1).padStart(7)} MB/s   new ${med(nn).toFixed(1).padStart(7)} MB/s   x${(med(nn) / med(o)).toFixed(2)}`)
}
