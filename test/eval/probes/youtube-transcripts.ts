import type { Probe } from './core.ts'

const fixture = 'pinion05__agent-complex-task__01-youtube-transcript-extraction'

/** Fighting YouTube's caption blocking: youtube-transcript-api, browser, tor, PO tokens. */
export const probes: Probe[] = [
  { id: 'yt-01', fixture, kind: 'recall', question: 'Which errors did youtube-transcript-api raise once YouTube blocked the IP?', answers: [['RequestBlocked', 'IpBlocked']] },
  { id: 'yt-02', fixture, kind: 'artifact', question: 'Which script batch-fetched all 50 transcripts?', answers: ['yt_fetch_all.py'] },
  { id: 'yt-03', fixture, kind: 'artifact', question: 'Where was the comparison site written?', answers: ['/tmp/ai-model-comparison.html'] },
  { id: 'yt-04', fixture, kind: 'recall', question: 'Which winner tally did the site report for GPT 5.6 Sol?', answers: ['GPT 5.6 Sol 9승'] },
  { id: 'yt-05', fixture, kind: 'recall', question: 'On which port did tor listen?', answers: ['9050'] },
  { id: 'yt-06', fixture, kind: 'decision', question: 'Which cookie was set to get past the consent page through tor?', answers: ['CONSENT=YES+'] },
  { id: 'yt-07', fixture, kind: 'decision', question: 'Which message showed YouTube detecting the tor exit as a bot?', answers: ["Sign in to confirm you're not a bot"] },
  { id: 'yt-08', fixture, kind: 'decision', question: 'Which yt-dlp player client listed the subtitles with the browser cookies?', answers: ['player_client=android'] },
  { id: 'yt-09', fixture, kind: 'artifact', question: 'Which yt-dlp plugin was installed to generate PO tokens, and on which port did its server run?', answers: ['bgutil-ytdlp-pot-provider', '4416'] },
  { id: 'yt-10', fixture, kind: 'recall', question: 'Which Python dependency was missing for the SOCKS proxy?', answers: ['pysocks'] },
  { id: 'yt-11', fixture, kind: 'artifact', question: 'Which GitHub repository were the sessions pushed to?', answers: ['pinion05/agent-complex-task'] },
  { id: 'yt-12', fixture, kind: 'artifact', question: 'Which script masked secrets in the first uploaded session?', answers: ['mask_session.py'] },
  { id: 'yt-13', fixture, kind: 'continuation', question: 'How was the HTML sent to the user?', answers: ['telegram_send'] },
]
