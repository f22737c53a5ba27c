/** The compactd dashboard: sessions, a session's page, and the compaction preview. Hash routes: #/, #/s/<id>, #/preview. */
import 'uplot/dist/uPlot.min.css'
import './styles.css'
import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, apiKey, unauthorized } from './api.ts'
import { Preview } from './preview.tsx'
import { SessionPage } from './session.tsx'
import { SessionsList } from './sessions.tsx'

function useHash(): string {
  const [hash, setHash] = useState(location.hash)
  useEffect(() => {
    const on = () => setHash(location.hash)
    addEventListener('hashchange', on)
    return () => removeEventListener('hashchange', on)
  }, [])
  return hash
}

function KeyForm({ onDone, refused }: { onDone: () => void; refused: boolean }) {
  const [key, setKey] = useState('')
  return (
    <form
      class="key-form"
      onSubmit={(e) => {
        e.preventDefault()
        if (!key.trim()) return
        apiKey.set(key.trim())
        onDone()
      }}
    >
      <h1>compactd dashboard</h1>
      <p>This server requires an API key. It is kept in this tab's session storage only, and sent as a Bearer header.</p>
      {refused && <p role="alert" class="error">That key was refused: enter a valid key.</p>}
      <label for="api-key">API key</label>
      <input id="api-key" type="password" autocomplete="off" value={key} onInput={(e) => setKey(e.currentTarget.value)} autoFocus />
      <button type="submit">Open the dashboard</button>
    </form>
  )
}

function App() {
  const hash = useHash()
  const [keysRequired, setKeysRequired] = useState<boolean | null>(null)
  const [haveKey, setHaveKey] = useState(apiKey.get() !== null)
  const [refused, setRefused] = useState(false)
  useEffect(() => {
    api<{ keysRequired: boolean }>('/ui/config.json').then((c) => setKeysRequired(c.keysRequired), () => setKeysRequired(true))
    const on = () => {
      apiKey.clear()
      setRefused(true)
      setHaveKey(false)
    }
    unauthorized.add(on)
    return () => void unauthorized.delete(on)
  }, [])
  if (keysRequired === null) return <p class="loading">Loading…</p>
  if (keysRequired && !haveKey) return <KeyForm refused={refused} onDone={() => (setRefused(false), setHaveKey(true))} />
  const route = hash.replace(/^#/, '') || '/'
  const session = /^\/s\/(.+)$/.exec(route)
  return (
    <>
      <header class="top">
        <a class="brand" href="#/">compactd</a>
        <nav aria-label="Main">
          <a href="#/" aria-current={route === '/' ? 'page' : undefined}>Sessions</a>
          <a href="#/preview" aria-current={route === '/preview' ? 'page' : undefined}>Compaction preview</a>
        </nav>
        {keysRequired && (
          <button
            type="button"
            class="link"
            onClick={() => {
              apiKey.clear()
              setHaveKey(false)
            }}
          >
            Forget key
          </button>
        )}
      </header>
      <main>{session ? <SessionPage id={decodeURIComponent(session[1]!)} /> : route === '/preview' ? <Preview /> : <SessionsList />}</main>
    </>
  )
}

render(<App />, document.getElementById('app')!)
