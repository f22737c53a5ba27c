/** Generated agent exchanges (OpenAI format) for the session tests. */

export type Message = Record<string, unknown>

/**
 * One exchange: a request, a tool call (or several in parallel) with their results, and
 * a closing assistant message. `at` (ms) stamps every message; omit it for undated messages.
 */
export function exchange(i: number, opts: { at?: number; parallel?: number; file?: string; fail?: boolean; padding?: number } = {}): Message[] {
  const file = opts.file ?? `src/module${i}.ts`
  const stamp = opts.at !== undefined ? { timestamp: new Date(opts.at).toISOString() } : {}
  const calls = Array.from({ length: opts.parallel ?? 1 }, (_, k) => ({
    id: `call_${i}_${k}`,
    type: 'function',
    function: { name: k === 0 ? 'bash' : 'read_file', arguments: JSON.stringify(k === 0 ? { command: `npm test -- ${file}` } : { path: `src/helper${i}_${k}.ts` }) },
  }))
  const pad = opts.padding ? ` ${'lorem ipsum dolor sit amet '.repeat(opts.padding)}` : ''
  return [
    { role: 'user', content: `Fix the failing test for ${file} (task ${i})`, ...stamp },
    { role: 'assistant', content: null, tool_calls: calls, ...stamp },
    ...calls.map((c, k) => ({
      role: 'tool',
      tool_call_id: c.id,
      content: k === 0 ? (opts.fail === false ? `PASS ${file}` : `FAIL ${file}\nError: expected 4 to equal 5 in ${file}${pad}`) : `export const helper${i}_${k} = ${k}${pad}`,
      ...stamp,
    })),
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `edit_${i}`, type: 'function', function: { name: 'edit_file', arguments: JSON.stringify({ path: file, old_str: 'return 4', new_str: 'return 5' }) } }],
      ...stamp,
    },
    { role: 'tool', tool_call_id: `edit_${i}`, content: `Edited ${file}`, ...stamp },
    { role: 'assistant', content: `Fixed ${file}: the off-by-one in the total.${pad}`, ...stamp },
  ]
}

/** Tool call ids of a message list whose calls and results are not in the same list. */
export function splitPairs(messages: readonly Message[]): string[] {
  const calls = new Set<string>()
  const results = new Set<string>()
  for (const m of messages) {
    for (const c of (m.tool_calls as { id: string }[] | undefined) ?? []) calls.add(c.id)
    if (m.role === 'tool') results.add(m.tool_call_id as string)
  }
  return [...new Set([...[...calls].filter((c) => !results.has(c)), ...[...results].filter((r) => !calls.has(r))])]
}

/** An agent reading `turns` files, one tool call each, then asked to fix: browse and dashboard tests. */
export function toolConversation(turns: number, seed = 0, task = 'Read the files and fix the failing test.'): Message[] {
  const out: Message[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: task },
  ]
  for (let i = 0; i < turns; i++) {
    const id = `c${seed}_${i}`
    out.push(
      { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/f${i}.ts` }) } }] },
      { role: 'tool', tool_call_id: id, content: `// src/f${i}.ts\n${'export const value = compute(input, options);\n'.repeat(60)}` },
    )
  }
  out.push({ role: 'assistant', content: 'Done reading.' }, { role: 'user', content: 'Now fix it.' })
  return out
}

/** Seven user requests, a standing constraint among them: the aging tests (engine and HTTP). */
export const AGING_REQUESTS = [
  'Build a CLI that downloads the transcripts of the videos listed in videos.txt',
  'Never commit the API keys in .env, keep them out of every file you write.',
  'Add retries with backoff to src/fetch.ts',
  'Write the transcripts to out/ as one markdown file per video',
  'Now add a --since flag to src/cli.ts',
  'Make the summary page in out/index.html list the videos by date',
  'Fix the crash when a video has no captions',
]
