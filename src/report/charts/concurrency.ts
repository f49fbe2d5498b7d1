/**
 * CONCURRENCY-CAP: the measurement as a timeline, one row per request (the held uploads, the control,
 * the extra), each a bar from its send to its answer coloured by status. The extra's bar ending before
 * every held bar is cap + 1 served at once; ending where the first held bar ends, a request queued.
 * Behind the bars, a band: when the extra had to leave for its place among the held uploads to be
 * shown (after the last held upload surely reached the server, before any held answer could leave).
 */
import { chartedData } from '../../results/charted.ts';
import type { CheckResult } from '../../catalogue/types.ts';
import type { HeldTimeline } from '../../results/types.ts';
import type { ExtraWindow } from '../../verdicts/concurrency-cap.ts';
import { statusClass, STATUS_CLASS_LABEL } from '../observation-digest.ts';
import { OKABE_ITO, STATUS_COLOUR } from '../palette.ts';
import {
  axes,
  chart,
  el,
  formatAxisMs,
  formatMs,
  frame,
  group,
  legend,
  linear,
  niceMax,
  niceTicks,
  text,
  tooltip,
  topFor,
  type Frame,
  type LegendItem,
  type Svg,
} from './svg.ts';

/** CONCURRENCY-CAP's timeline, when its measurement recorded one. */
export function concurrencyChartData(result: CheckResult): HeldTimeline | null {
  const charted = chartedData(result);
  return charted?.kind === 'held-timeline' && charted.data.timeline.length > 0 ? charted.data : null;
}

const ROLE_LABEL = { held: 'held', control: 'control', extra: 'extra' } as const;

export function concurrencyTimelineChart(data: HeldTimeline, title: string): Svg {
  const rows = data.timeline;
  const present = [...new Set(rows.map((r) => statusClass(r.status)))];
  const extraWindow = data.extraWindow ?? null;
  const items: LegendItem[] = [
    ...present.map(
      (cls): LegendItem => ({ label: STATUS_CLASS_LABEL[cls], colour: STATUS_COLOUR[cls], shape: 'square' }),
    ),
    ...(extraWindow === null
      ? []
      : [{ label: 'when the extra had to leave', colour: BAND_COLOUR, shape: 'square' as const }]),
  ];
  const top = topFor(items);
  // Many held rows (Enterprise's hundred) get thin bars rather than a tall chart.
  const rowHeight = rows.length > 30 ? 3 : 16;
  const f = frame(720, top + rows.length * rowHeight + 48, { top, left: 64, right: 20 });
  const end = niceMax(Math.max(...rows.map((r) => r.answeredMs ?? r.sentMs)));
  const x = linear([0, end], [f.left, f.width - f.right]);
  const y = (i: number) => f.top + i * rowHeight + rowHeight / 2;
  const parts: Svg[] = [
    axes(f, {
      x,
      y: linear([0, 1], [f.height - f.bottom, f.top]),
      xTicks: niceTicks(0, end, 8),
      xFormat: formatAxisMs,
      yTicks: [],
      xLabel: 'time from the first held upload’s send',
      yLabel: 'request',
    }),
  ];
  const band = extraWindow && extraWindowBand(extraWindow, x, f);
  if (band) parts.push(band);
  let heldSeen = 0;
  rows.forEach((row, i) => {
    const colour = STATUS_COLOUR[statusClass(row.status)];
    const label = row.role === 'held' ? `${ROLE_LABEL.held} ${++heldSeen}` : ROLE_LABEL[row.role];
    const answered = row.answeredMs === null ? 'no answer' : `answered at ${formatMs(row.answeredMs)}`;
    const bar = el('rect', {
      x: x(row.sentMs),
      y: y(i) - rowHeight * 0.35,
      width: Math.max(1, x(row.answeredMs ?? end) - x(row.sentMs)),
      height: rowHeight * 0.7,
      fill: colour,
      'fill-opacity': row.role === 'held' ? 0.55 : 1,
      'data-role': row.role,
    });
    parts.push(
      group({ class: 'request' }, [
        bar,
        tooltip(`${label}: sent at ${formatMs(row.sentMs)}, ${answered}, ${row.status ?? 'no response'}`),
      ]),
    );
    if (row.role !== 'held' || rowHeight > 8)
      parts.push(text(f.left - 6, y(i) + 3.5, label, { class: 'row-label', 'text-anchor': 'end' }));
  });
  parts.push(legend(f, items));
  return chart(f, title, 'concurrency-chart', parts);
}

const BAND_COLOUR = OKABE_ITO.bluishGreen;

/** The band of the extra's window across every row; none where the window closed before it opened. */
function extraWindowBand(window: ExtraWindow, x: (ms: number) => number, f: Frame): Svg | null {
  if (window.toMs <= window.fromMs) return null;
  return group({ class: 'extra-window' }, [
    el('rect', {
      x: x(window.fromMs),
      y: f.top,
      width: x(window.toMs) - x(window.fromMs),
      height: f.height - f.top - f.bottom,
      fill: BAND_COLOUR,
      'fill-opacity': 0.15,
      'data-band': 'extra-window',
    }),
    tooltip(
      `the extra had to leave after ${formatMs(window.fromMs)} (every held upload surely on the server) and before ${formatMs(window.toMs)} (before any held answer could leave)`,
    ),
  ]);
}
