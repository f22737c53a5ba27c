/**
 * A conversation that mentions URLs everywhere (issue 10, defect 7), and the check that
 * a summary keeps them byte for byte: test/engine/urls.test.ts, test/url-passthrough.test.ts.
 */
export const YOUTUBE = 'https://www.youtube.com/watch?v=abc'
export const FILE_URL = 'file:///x'
export const DOUBLE_SLASH_URL = 'https://example.com//docs//api?q=a//b'
export const URLS = [YOUTUBE, FILE_URL, DOUBLE_SLASH_URL]
export const SLASHED_PATH = 'src//lib//util.ts'

type Msg = Record<string, unknown>
/** An agent session that mentions the URLs everywhere: the task, tool arguments (read, fetch, shell with a cd, edits), outputs, errors, conclusions. */
export function urlConversation(rounds = 12): Msg[] {
  const out: Msg[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: `Summarise the talk at ${YOUTUBE}, compare it with the notes in ${FILE_URL} and the API docs at ${DOUBLE_SLASH_URL}, then fix ${SLASHED_PATH}.` },
  ]
  let n = 0
  const call = (name: string, args: Record<string, unknown>, result: string, content = '') => {
    const id = `call_${++n}`
    out.push({ role: 'assistant', content, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] })
    out.push({ role: 'tool', tool_call_id: id, content: result })
  }
  for (let r = 0; r < rounds; r++) {
    const pad = ` ${'transcript text '.repeat(60)}`
    call('read', { path: YOUTUBE }, `Title: the talk (${YOUTUBE})${pad}`, `Reading ${YOUTUBE}.`)
    call('web_fetch', { url: DOUBLE_SLASH_URL }, `Fetched ${DOUBLE_SLASH_URL}: 200 OK${pad}`)
    call('read_file', { path: FILE_URL }, `notes from ${FILE_URL}${pad}`)
    call('bash', { command: `cd /repo && curl -sL ${YOUTUBE} -o out//page${r}.html && cat ${SLASHED_PATH}` }, r % 3 === 0 ? `curl: (6) Could not resolve host for ${YOUTUBE}\nProcess exited with code 6` : `export const util = 1${pad}`)
    call('edit_file', { path: SLASHED_PATH, old_str: 'const a = 1', new_str: `// source: ${YOUTUBE}\nconst a = 2` }, `Edited ${SLASHED_PATH}`)
    out.push({ role: 'assistant', content: `Decided to cite ${YOUTUBE} and ${FILE_URL} in ${SLASHED_PATH}; the API docs are at ${DOUBLE_SLASH_URL}.` })
    if (r % 4 === 3) out.push({ role: 'user', content: `Keep quoting ${YOUTUBE} exactly, and also read ${FILE_URL} again.` })
  }
  out.push({ role: 'user', content: 'continue' })
  return out
}

/**
 * Every URL-looking token of `text` (from a scheme to the next space, quote or bracket)
 * is one of the input URLs, byte for byte; a mangled or cut one is returned.
 */
export function alteredUrls(text: string): string[] {
  const bad: string[] = []
  for (const m of text.matchAll(/\b(?:https?|file):\/*[^\s"'`<>()[\]|\\]*/g)) {
    const token = m[0].replace(/[.,;:!?]+$/, '')
    if (!URLS.includes(token)) bad.push(token)
  }
  return bad
}

