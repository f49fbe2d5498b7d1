/**
 * Quota checks: X-RateLimit-Remaining against request number, each point coloured by status,
 * a line at request #Limit (the last that may succeed) and the first 429 marked.
 */
import { TOO_MANY_REQUESTS } from '../../contract/types.ts';
import { chartedData } from '../../results/charted.ts';
import type { CheckResult } from '../../catalogue/types.ts';
import type { QuotaSeries } from '../../results/types.ts';
import type { SeriesPoint } from '../../verdicts/hdr-remaining.ts';
import { statusClass, STATUS_CLASS_LABEL, type StatusClass } from '../observation-digest.ts';
import { STATUS_COLOUR, THRESHOLD } from '../palette.ts';
import {
  axes,
  chart,
  el,
  frame,
  group,
  legend,
  linear,
  linePath,
  marker,
  niceMax,
  niceTicks,
  text,
  topFor,
  type Frame,
  type LegendItem,
  type Scale,
  type Shape,
  type Svg,
} from './svg.ts';

/** What the chart draws: a series, the Limit it is held to, and its first 429. */
export type QuotaChartData = Pick<QuotaSeries, 'series' | 'first429'> & { readonly limit: number };

/** The Limit most responses announced, or null when none carried one. */
function announced(series: readonly SeriesPoint[]): number | null {
  const votes = new Map<number, number>();
  for (const p of series) if (typeof p.limit === 'number') votes.set(p.limit, (votes.get(p.limit) ?? 0) + 1);
  let best: number | null = null;
  for (const [limit, count] of votes) if (best === null || count > (votes.get(best) ?? 0)) best = limit;
  return best;
}

/**
 * The chart of a quota check's series (QUOTA-READ, QUOTA-INGEST), held to the Limit it judged by, or
 * of a bare Remaining series (HDR-REMAINING), held to the Limit most responses announced; null when
 * there is no series, or no Limit to draw.
 */
export function quotaChartData(result: CheckResult): QuotaChartData | null {
  const charted = chartedData(result);
  if (charted?.kind === 'remaining-series')
    return charted.data.series.length > 0 ? fromSeries(charted.data.series) : null;
  if (charted?.kind !== 'quota-series' || charted.data.series.length === 0) return null;
  const { series, limit, first429 } = charted.data;
  return limit !== null ? { series, limit, first429 } : fromSeries(series);
}

/** A bare series: the Limit and first 429 are read off the series itself. */
function fromSeries(series: readonly SeriesPoint[]): QuotaChartData | null {
  const limit = announced(series);
  return limit === null
    ? null
    : { series, limit, first429: series.find((p) => p.status === TOO_MANY_REQUESTS)?.n ?? null };
}

const shapeOf = (cls: StatusClass): Shape => (cls === 'ok' ? 'circle' : cls === 'rate-limited' ? 'diamond' : 'square');

/** The Limit's dashed line and label, between `top` and `bottom`. */
function limitMarks(limit: number, x: Scale, top: number, bottom: number): Svg[] {
  // The Limit: every request up to here may succeed, the next must be a 429.
  const lx = x(limit + 0.5);
  return [
    el('line', {
      x1: lx,
      x2: lx,
      y1: top,
      y2: bottom,
      stroke: THRESHOLD,
      'stroke-width': 1.5,
      'stroke-dasharray': '5 4',
    }),
    text(lx - 4, top + 10, `Limit ${limit}`, { class: 'annotation threshold', 'text-anchor': 'end' }),
  ];
}

/** The first 429's line and label (early or late against the Limit), or a note that none came. */
function first429Mark(data: QuotaChartData, x: Scale, f: Frame, bottom: number): Svg {
  const top = f.top;
  if (data.first429 !== null) {
    const fx = x(data.first429);
    const early = data.first429 <= data.limit;
    const late = data.first429 > data.limit + 1;
    return group({ class: 'first-429' }, [
      el('line', {
        x1: fx,
        x2: fx,
        y1: top + 16,
        y2: bottom,
        stroke: STATUS_COLOUR['rate-limited'],
        'stroke-width': 2,
      }),
      text(fx + 5, top + 26, `first 429: #${data.first429}${early ? ' (early)' : late ? ' (late)' : ''}`, {
        class: `annotation ${early || late ? 'bad' : ''}`,
        'text-anchor': fx > f.width * 0.7 ? 'end' : 'start',
        dx: fx > f.width * 0.7 ? -10 : 0,
      }),
    ]);
  }
  return text(f.width - f.right, top + 26, 'no 429 observed', { class: 'annotation bad', 'text-anchor': 'end' });
}

export function quotaChart(data: QuotaChartData, title: string): Svg {
  const series = [...data.series].sort((a, b) => a.n - b.n);
  const present = [...new Set(series.map((p) => statusClass(p.status)))];
  const items: LegendItem[] = [
    ...present.map((cls) => ({ label: STATUS_CLASS_LABEL[cls], colour: STATUS_COLOUR[cls], shape: shapeOf(cls) })),
    { label: 'Limit', colour: THRESHOLD, dashed: true },
  ];
  const margin = topFor(items);
  const f = frame(720, 216 + margin, { top: margin, right: 20 });
  const lastN = Math.max(series[series.length - 1]?.n ?? 1, data.limit + 1);
  const maxRemaining = Math.max(data.limit, ...series.map((p) => p.remaining ?? 0));
  const x = linear([0, lastN + 1], [f.left, f.width - f.right]);
  const y = linear([0, niceMax(maxRemaining)], [f.height - f.bottom, f.top]);
  const top = f.top;
  const bottom = f.height - f.bottom;
  const r = series.length > 400 ? 1.5 : series.length > 150 ? 2 : 3;

  const parts: Svg[] = [
    axes(f, {
      x,
      y,
      xTicks: niceTicks(0, lastN, 8).filter((t) => t > 0),
      yTicks: niceTicks(0, y.domain[1], 4),
      xLabel: 'request number',
      yLabel: 'X-RateLimit-Remaining',
    }),
  ];

  parts.push(...limitMarks(data.limit, x, top, bottom));

  parts.push(
    el('path', {
      d: linePath(series.map((p) => [x(p.n), p.remaining === null ? null : y(p.remaining)])),
      class: 'series-line',
    }),
  );
  for (const p of series) {
    const cls = statusClass(p.status);
    // A missing Remaining header is drawn on the axis as a hollow mark: visible, not mistaken for 0.
    const py = p.remaining === null ? bottom : y(p.remaining);
    parts.push(
      marker(shapeOf(cls), x(p.n), py, r, p.remaining === null ? 'none' : STATUS_COLOUR[cls], {
        stroke: p.remaining === null ? STATUS_COLOUR[cls] : null,
        'data-n': p.n,
        'data-status': p.status ?? 'none',
      }),
    );
  }

  parts.push(first429Mark(data, x, f, bottom));

  parts.push(legend(f, items));
  return chart(f, title, 'quota-chart', parts);
}
