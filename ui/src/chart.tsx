/** The token timeline (uPlot): tokens before and after each compaction, the budget, the summary's size. */
import { useEffect, useRef, useState } from 'preact/hooks'
import uPlot from 'uplot'
import { fmtInt, fmtTime } from './api.ts'

export interface Checkpoint {
  checkpointNum: number
  round: number | null
  strategy: string | null
  fromMessageIndex: number | null
  toMessageIndex: number | null
  messagesCompressed: number | null
  summary: string
  keyFacts: Record<string, unknown> | null
  originalTokens: number | null
  compressedTokens: number | null
  compressionRatio: number | null
  summaryCostUsd: number | null
  targetTokens: number | null
  model: string | null
  durationMs: number | null
  summaryTokens: number | null
  foldedFrom: number[] | null
  createdAt: string
}

export interface VersionPoint {
  version: number
  tokens: number
  updatedAt: string
}

export function TokenChart({ checkpoints, versions, summaryBudget }: { checkpoints: Checkpoint[]; versions: VersionPoint[]; summaryBudget: number | null }) {
  const el = useRef<HTMLDivElement>(null)
  const [hover, setHover] = useState<Checkpoint | null>(null)
  const [points, setPoints] = useState(0)

  useEffect(() => {
    if (!el.current) return
    // One x per event, in time order; a checkpoint and a summary version never share an x.
    const events: { t: number; cp?: Checkpoint; v?: VersionPoint }[] = [
      ...checkpoints.map((cp) => ({ t: Date.parse(cp.createdAt) / 1000, cp })),
      ...versions.map((v) => ({ t: Date.parse(v.updatedAt) / 1000, v })),
    ].sort((a, b) => a.t - b.t)
    for (let i = 1; i < events.length; i++) if (events[i]!.t <= events[i - 1]!.t) events[i]!.t = events[i - 1]!.t + 0.001
    const xs = events.map((e) => e.t)
    const before = events.map((e) => e.cp?.originalTokens ?? null)
    const after = events.map((e) => e.cp?.compressedTokens ?? null)
    const budget = events.map((e) => e.cp?.targetTokens ?? null)
    const summary = events.map((e) => e.v?.tokens ?? e.cp?.summaryTokens ?? null)
    const plotted = before.filter((v) => v !== null).length
    const width = Math.max(320, el.current.clientWidth || 800)
    const opts: uPlot.Options = {
      width,
      height: 300,
      title: 'Tokens over time',
      scales: { x: { time: true } },
      axes: [{}, { label: 'tokens', size: 70 }],
      series: [
        { label: 'time', value: (_u, v) => (v === null ? '–' : fmtTime(new Date(v * 1000).toISOString())) },
        { label: 'before compaction', stroke: '#c0392b', width: 2, spanGaps: true, points: { show: true, size: 7, fill: '#c0392b' } },
        { label: 'after compaction', stroke: '#1e8449', width: 2, spanGaps: true, points: { show: true, size: 7, fill: '#1e8449' } },
        { label: 'budget', stroke: '#7f8c8d', width: 1, dash: [6, 4], spanGaps: true, points: { show: false } },
        { label: 'summary', stroke: '#2e86c1', width: 2, spanGaps: true, points: { show: true, size: 5 } },
      ],
      hooks: {
        setCursor: [
          (u) => {
            const i = u.cursor.idx
            setHover(i === null || i === undefined ? null : (events[i]?.cp ?? null))
          },
        ],
      },
    }
    const data: uPlot.AlignedData = [xs, before, after, budget, summary]
    const plot = new uPlot(opts, data, el.current)
    setPoints(plotted)
    const onResize = () => plot.setSize({ width: Math.max(320, el.current?.clientWidth ?? width), height: 300 })
    addEventListener('resize', onResize)
    return () => {
      removeEventListener('resize', onResize)
      plot.destroy()
    }
  }, [checkpoints, versions])

  return (
    <figure class="chart">
      <div ref={el} class="chart-canvas" data-testid="token-chart" data-points={points} role="img" aria-label={`Token timeline: ${points} compactions${versions.length ? `, ${versions.length} summary versions` : ''}`} />
      <figcaption>
        <div class="hover" data-testid="chart-hover" aria-live="polite">
          {hover ? (
            <>
              <strong>Checkpoint {hover.checkpointNum}</strong> · {fmtTime(hover.createdAt)} · strategy <b>{hover.strategy ?? '–'}</b> · {fmtInt(hover.originalTokens)} → {fmtInt(hover.compressedTokens)} tokens · ratio{' '}
              {hover.compressionRatio ?? '–'} · cost ${(hover.summaryCostUsd ?? 0).toFixed(4)} · {hover.durationMs === null ? 'duration –' : `${fmtInt(hover.durationMs)} ms`}
              {hover.targetTokens ? ` · budget ${fmtInt(hover.targetTokens)}` : ''}
            </>
          ) : (
            <span class="muted">Hover a point to see its checkpoint{summaryBudget ? ` · summary budget ${fmtInt(summaryBudget)} tokens` : ''}.</span>
          )}
        </div>
      </figcaption>
    </figure>
  )
}
