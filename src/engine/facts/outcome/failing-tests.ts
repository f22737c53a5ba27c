/**
 * The failing tests a test runner's output names, each with its error line: pytest,
 * unittest, go test, jest/vitest, cargo test and TAP.
 */
import { clipLine, lines, signatureWeight, tracebackEnds } from './signatures.ts'

export interface FailingTest {
  name: string
  error?: string
}

/** Failing tests with their error lines (pytest, unittest, go test, jest, cargo, TAP). */
export function extractFailingTests(output: string): FailingTest[] {
  const ls = lines(output)
  const tests = new Map<string, string | undefined>()
  const add = (name: string, error?: string) => {
    const e = error?.trim() ? clipLine(error, 300) : undefined
    if (!tests.has(name) || (e && !tests.get(name))) tests.set(name, e)
  }
  // pytest: the short summary names the test and its error; the FAILURES section has `E` lines.
  const pytestSections = new Map<string, string>()
  let section: string | undefined
  for (const l of ls) {
    const h = /^_{3,} (?:ERROR at \w+ of )?(\S+(?: \S+)?) _{3,}$/.exec(l)
    if (h) {
      section = h[1]!
      continue
    }
    if (section && /^E\s+\S/.test(l)) {
      const e = l.replace(/^E\s+/, '')
      const cur = pytestSections.get(section)
      // The typed error line beats an assertion's expression.
      if (!cur || signatureWeight(e) >= signatureWeight(cur)) pytestSections.set(section, e)
    }
  }
  for (const l of ls) {
    const m = /^(FAILED|ERROR) (\S+::\S+?)(?: - (.*))?$/.exec(l)
    if (m) {
      const short = m[2]!.split('::').pop()!.replace(/\[.*$/, '')
      const section = [...pytestSections.entries()].find(([k]) => k === short || k.endsWith(`.${short}`) || k.startsWith(`${short}[`) || k.endsWith(short))
      add(m[2]!, m[3] ?? section?.[1])
    }
  }
  // unittest: "ERROR: test_x (pkg.tests.Case)" then a traceback.
  const ends = tracebackEnds(ls)
  for (let i = 0; i < ls.length; i++) {
    const m = /^(?:ERROR|FAIL): (test\w*) \(([\w.]+)\)/.exec(ls[i]!)
    if (!m) continue
    const tb = ends.find((e) => e.start > i)
    const next = ls.findIndex((l, k) => k > i && /^(?:ERROR|FAIL): test\w* \(/.test(l))
    const stop = next < 0 ? ls.length : next
    // The traceback's last line; without a traceback (a condensed report), the next typed error line.
    const error =
      tb && tb.start < stop
        ? ls[tb.end]
        : ls.slice(i + 1, Math.min(stop, i + 12)).find((l) => signatureWeight(l) >= 5 && signatureWeight(l) < 8 && !/^FAILED \(/.test(l))
    // Python 3.11+ prints the full name in the parentheses: "test_x (pkg.Case.test_x)".
    add(m[2]!.endsWith(`.${m[1]}`) ? m[2]! : `${m[2]}.${m[1]}`, error)
  }
  // go test: "--- FAIL: TestX (0.00s)" followed by indented "file_test.go:12: message".
  for (let i = 0; i < ls.length; i++) {
    const m = /^\s*--- FAIL: (\S+)/.exec(ls[i]!)
    if (m) add(m[1]!, /^\s+\S+\.go:\d+: (.*)$/.exec(ls[i + 1] ?? '')?.[1])
  }
  // jest/vitest: "● Suite › name" then the message; "✕ name" without detail.
  for (let i = 0; i < ls.length; i++) {
    const m = /^\s*● (.+ › .+)$/.exec(ls[i]!)
    if (m) {
      const msg = ls.slice(i + 1, i + 8).find((l) => l.trim() && !/^\s*$/.test(l))
      add(m[1]!.trim(), msg?.trim())
    }
  }
  if (tests.size === 0) {
    for (let i = 0; i < ls.length; i++) {
      const m = /^\s*[✕×✗] (.+?)(?: \(\d+ ?m?s\))?$/.exec(ls[i]!)
      if (m) add(m[1]!.trim(), ls.slice(i + 1, i + 4).find((l) => /\S/.test(l) && !/^\s*[✓✕×✗]/.test(l))?.trim())
    }
  }
  // cargo test: "test tests::x ... FAILED" and "thread 'tests::x' panicked at …:\nmessage".
  for (let i = 0; i < ls.length; i++) {
    const m = /^test (\S+) \.\.\. FAILED$/.exec(ls[i]!)
    if (!m) continue
    const p = ls.findIndex((l) => l.startsWith(`thread '${m[1]}' panicked at`))
    add(m[1]!, p >= 0 ? (ls[p + 1]?.trim() || ls[p]) : undefined)
  }
  // TAP: "not ok 3 - name".
  for (const l of ls) {
    const m = /^\s*not ok \d+ - (.+?)(?:\s+#.*)?$/.exec(l)
    if (m && !/^test\/.*\.(?:t|j)s$/.test(m[1]!)) add(m[1]!)
  }
  return [...tests.entries()].slice(0, 50).map(([name, error]) => (error ? { name, error } : { name }))
}
