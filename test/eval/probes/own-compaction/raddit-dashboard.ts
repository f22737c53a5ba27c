import type { Probe } from '../core.ts'

const fixture = 'pinion05__agent-complex-task__03-raddit-dashboard-pr'

/**
 * raddit (pi agent), the range the agent's own compaction covered: the normalised
 * fixture's messages 0–471 (the raw session's entries before firstKeptEntryId 8ff94a6e).
 * Chart migration to lightweight-charts (PR #47), the two squish fixes (#50, #52), the
 * penny-stock full scan (#51), and the start of the dashboard bid/ask column (in flight).
 *
 * Written from those messages only, BLIND to the agent's summary and to compactd's output
 * for this range (issue 22). Answers are identifiers, hashes, numbers and error text, so a
 * summary in English and one in Korean are scored alike; where the fact exists only as a
 * Korean word an English rendering is listed as an alternative (noted on the probe).
 * The ids start `own-` so they never clash with the tuning probes of this session.
 */
export const probes: Probe[] = [
  // ── task, constraints, user preferences ──
  { id: 'own-raddit-01', fixture, kind: 'recall', question: 'Which repository (GitHub slug) and which sub-project of it is the work on?', answers: ['qkrehgus714/raddit', 'raddit-astro'] },
  // The rule is Korean in the session (FF머지 금지, 무조건 머지커밋만); the English alternatives render it.
  // A bare "fast-forward" is not enough: git pull prints it.
  { id: 'own-raddit-02', fixture, kind: 'decision', question: 'Which repository rule governs merges (read from which file)?', answers: ['CONTRIBUTING', ['FF머지 금지', 'FF 금지', '머지커밋만', 'non-fast-forward', 'no fast-forward', 'no-ff', 'merge commits only']] },
  { id: 'own-raddit-03', fixture, kind: 'decision', question: 'Which subagent does the user want to review/verify PRs before they are merged?', answers: ['architect'] },
  // "Korean" is the English rendering of 한국어 (the user wrote 한국어로 요약대답해줘).
  { id: 'own-raddit-04', fixture, kind: 'decision', question: 'In which language did the user ask to be answered?', answers: [['한국어', 'Korean']] },

  // ── repository state: PRs, branches, merge commits ──
  { id: 'own-raddit-05', fixture, kind: 'artifact', facet: 'repo-state', question: 'PR #47 (chart migration): its first commit and the merge commit on dev?', answers: ['28c95af', 'd364611'] },
  { id: 'own-raddit-06', fixture, kind: 'artifact', facet: 'repo-state', question: 'The overlay squish fix: branch and merge commit of PR #50?', answers: ['fix/chart-scale-reset', '0e62967'] },
  { id: 'own-raddit-07', fixture, kind: 'artifact', facet: 'repo-state', question: 'The penny-stock full scan: branch and merge commit of PR #51?', answers: ['feat/penny-stock-fullscan', '57c5337'] },
  { id: 'own-raddit-08', fixture, kind: 'artifact', facet: 'repo-state', question: 'The autoScale fix: branch and merge commit of PR #52?', answers: ['fix/chart-autoscale-on-range-switch', 'f4304e7'] },
  { id: 'own-raddit-09', fixture, kind: 'artifact', facet: 'repo-state', question: 'What did PR #51 change in upstream.ts, and which API does it call?', answers: ['attachQuotesBatch', 'spark'] },
  { id: 'own-raddit-10', fixture, kind: 'artifact', facet: 'repo-state', question: 'What did the review fixes of PR #51 protect, and what cold-load time did the concurrency change give?', answers: ['stale-if-error', '2.5s'] },

  // ── findings, research results, explanations ──
  { id: 'own-raddit-11', fixture, kind: 'recall', facet: 'research', question: 'How many tickers does ApeWisdom all-stocks return, and what was the current filter\'s recall rate?', answers: ['751', '29%'] },
  { id: 'own-raddit-12', fixture, kind: 'recall', facet: 'finding', question: 'Why did the dashboard show 0 stocks under $5 (the two code causes)?', answers: [['slice(0,120)', 'slice(120)', 'slice(0, 120)'], 'FALSE_POSITIVE'] },
  { id: 'own-raddit-13', fixture, kind: 'recall', facet: 'explanation', question: 'Root cause and fix of the squish when switching to the day range (issue #49)?', answers: ['autoscaleInfoProvider', ['MA/BB', '볼린저', 'Bollinger']] },
  { id: 'own-raddit-14', fixture, kind: 'recall', facet: 'explanation', question: 'Root cause and fix of the squish after the user zoomed the price axis?', answers: [['autoScale: true', 'autoScale:true', 'autoScale=true'], 'lastRange'] },
  { id: 'own-raddit-15', fixture, kind: 'recall', facet: 'research', question: 'How does the batch bid/ask lookup authenticate against Yahoo?', answers: ['v7/quote', 'crumb'] },

  // ── failing commands, errors, rejected attempts ──
  { id: 'own-raddit-16', fixture, kind: 'recall', facet: 'rejected', question: 'Why could the headless browser not load the repro pages from the local http.server, and what was used instead?', answers: ['ERR_CONNECTION_REFUSED', 'file://'] },
  // "disproven" is literal ([276]); the other alternatives say the same in other words.
  { id: 'own-raddit-17', fixture, kind: 'decision', facet: 'rejected', question: 'What happened to the first hypothesis for #49 (fitContent does not reset the price scale)?', answers: ['fitContent', ['disproven', 'disproved', 'ruled out']] },
  { id: 'own-raddit-18', fixture, kind: 'decision', facet: 'explanation', question: 'Why were the astro check errors ignored, and what validates changes instead?', answers: ['7026', 'astro build'] },
  { id: 'own-raddit-19', fixture, kind: 'decision', facet: 'explanation', question: 'Why was issue #49 closed by hand after PR #50 merged?', answers: [['#49', 'issues/49'], 'default branch'] },
  { id: 'own-raddit-20', fixture, kind: 'decision', question: 'In penny mode, which instruments does getData keep (and which ETFs did that drop)?', answers: ['EQUITY', ['SOXS', 'MSOS']] },

  // ── in flight and next ──
  { id: 'own-raddit-21', fixture, kind: 'continuation', question: 'On which branch is the dashboard bid/ask column being built?', answers: ['feat/dashboard-bidask-column'] },
  { id: 'own-raddit-22', fixture, kind: 'continuation', question: 'What has been added so far for the bid/ask column (field and function)?', answers: ['buy_ratio_pct', 'attachBidAskBatch'] },
  { id: 'own-raddit-23', fixture, kind: 'continuation', question: 'Which review findings of PR #47 were deferred (the follow-up issue, the NIT)?', answers: [['#48', 'issues/48'], 'getElementById'] },
  // "no fallback" is the English rendering of 폴백 없음 ([428]: spark 단일 의존, 폴백 없음 → 후속 PR).
  { id: 'own-raddit-24', fixture, kind: 'continuation', question: 'Which P2 finding of the PR #51 review was left for a follow-up PR?', answers: ['spark', ['폴백 없음', 'no fallback']] },
]
