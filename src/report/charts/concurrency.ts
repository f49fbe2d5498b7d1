/**
 * CONCURRENCY-CAP: the measurement as a timeline, one row per request (the held uploads, the control,
 * the extra), each a bar from its send to its answer coloured by status. The extra's bar ending before
 * every held bar is cap + 1 served at once; ending where the first held bar ends, a request queued.
 */
import { chartedData } from '../../results/charted.ts';
import type { CheckResult } from '../../catalogue/types.ts';
import type { HeldTimeline } from '../../results/types.ts';
import { statusClass, STATUS_CLASS_LABEL } from '../observation-digest.ts';
import { STATUS_COLOUR } from '../palette.ts';
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
  const items: LegendItem[] = present.map((cls) => ({
    label: STATUS_CLASS_LABEL[cls],
    colour: STATUS_COLOUR[cls],
    shape: 'square',
  }));
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
