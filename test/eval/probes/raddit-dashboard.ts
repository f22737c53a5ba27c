import type { Probe } from './core.ts'

const fixture = 'pinion05__agent-complex-task__03-raddit-dashboard-pr'

/** raddit: chart migration to lightweight-charts, squish fixes, penny-stock full scan, bid/ask column. */
export const probes: Probe[] = [
  { id: 'raddit-01', fixture, kind: 'recall', question: 'To which commit was local main fast-forwarded?', answers: ['ca7ca30'] },
  { id: 'raddit-02', fixture, kind: 'continuation', question: 'Which merge rule from CONTRIBUTING must every merge follow?', answers: [['FF머지 금지', '머지커밋']] },
  { id: 'raddit-03', fixture, kind: 'recall', question: 'What is the URL of the chart-migration pull request?', answers: ['pull/47'] },
  { id: 'raddit-04', fixture, kind: 'artifact', question: 'Which CSS rule fixed the P1 review finding (tooltip not hiding)?', answers: ['[hidden]{display:none!important}'] },
  { id: 'raddit-05', fixture, kind: 'decision', question: 'What was the root-cause fix for the squish when switching to the day range (overlays)?', answers: ['autoscaleInfoProvider'] },
  { id: 'raddit-06', fixture, kind: 'decision', question: 'Which line of services.ts showed that overlays are only provided for the day range?', answers: ['services.ts:103'] },
  { id: 'raddit-07', fixture, kind: 'decision', question: 'Why did the penny-stock filter return 0 results?', answers: ['slice(0,120)'] },
  { id: 'raddit-08', fixture, kind: 'recall', question: 'How many tickers does ApeWisdom return across all pages?', answers: [['751 tickers', '751개']] },
  { id: 'raddit-09', fixture, kind: 'artifact', question: 'Which function replaced per-ticker quote lookups in upstream.ts?', answers: ['attachQuotesBatch'] },
  { id: 'raddit-10', fixture, kind: 'recall', question: 'Which branch held the penny-stock full-scan work?', answers: ['feat/penny-stock-fullscan'] },
  { id: 'raddit-11', fixture, kind: 'decision', question: 'Which cache behaviour did the P1 review finding of PR #51 protect?', answers: ['stale-if-error'] },
  { id: 'raddit-12', fixture, kind: 'recall', question: 'What did the concurrency change do to the cold load time?', answers: ['2.5s'] },
  { id: 'raddit-13', fixture, kind: 'artifact', question: 'Which function and field were added for the dashboard bid/ask column?', answers: ['attachBidAskBatch', 'buy_ratio_pct'] },
  { id: 'raddit-14', fixture, kind: 'continuation', question: 'Where did the user want the bid/ask ratio shown (and not shown)?', answers: ['단일종목 자세히보기 말고'] },
  { id: 'raddit-15', fixture, kind: 'continuation', question: 'What did the user ask to happen after the first review of PR #47?', answers: ['한번 더 리뷰하고 승인받으면 데브 머지'] },
  { id: 'raddit-16', fixture, kind: 'continuation', question: 'What user observation led to the autoScale fix?', answers: ['세로 스케일을 한번이라도 수정'] },
  { id: 'raddit-17', fixture, kind: 'decision', question: 'Which lightweight-charts build was used for the file:// repro when ESM imports were blocked?', answers: [['standalone.production.js', 'window.LightweightCharts']] },
]
