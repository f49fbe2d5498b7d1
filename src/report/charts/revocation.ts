/**
 * Revocation (§5.9, §8.3): per trial and edge, the bracket [lower, upper] in which the edge began
 * rejecting the revoked key, against the SLA line; and the distribution (CDF) of the upper bounds.
 */
import { chartedData } from '../../results/charted.ts';
import type { CheckResult } from '../../catalogue/types.ts';
import type { RevocationBrackets } from '../../results/types.ts';
import { seriesColour, THRESHOLD } from '../palette.ts';
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
  marker,
  niceMax,
  niceTicks,
  SHAPES,
  text,
  tooltip,
  topFor,
  type LegendItem,
  type Scale,
  type Shape,
  type Svg,
} from './svg.ts';

/** REVOKE-LATENCY's brackets, when it judged any. */
export function revocationChartData(result: CheckResult): RevocationBrackets | null {
  const charted = chartedData(result);
  return charted?.kind === 'revocation-brackets' && charted.data.trials.length > 0 ? charted.data : null;
}

interface EdgeStyle {
  readonly edge: string;
  readonly colour: string;
  readonly shape: Shape;
}

function edgeStyles(data: RevocationBrackets): EdgeStyle[] {
  const edges = [...new Set(data.trials.map((t) => t.edge))].sort();
  return edges.map((edge, i) => ({ edge, colour: seriesColour(i), shape: SHAPES[i % SHAPES.length] ?? 'circle' }));
}

const yMaxOf = (data: RevocationBrackets): number =>
  niceMax(
    Math.max(data.slaMs * 1.15, ...data.trials.map((t) => t.upperMs ?? 0), ...data.trials.map((t) => t.lowerMs ?? 0)),
  );

type Trial = RevocationBrackets['trials'][number];

/** One trial on one edge: its [lower, upper] bracket, its upper bound's mark (ringed over the SLA), its tooltip. */
function trialMarks(t: Trial, style: EdgeStyle, cx: number, y: Scale, top: number, slaMs: number): Svg[] {
  const marks: Svg[] = [];
  const over = t.upperMs === null || t.upperMs >= slaMs;
  const tip = tooltip(
    `trial ${t.trial}, ${t.edge}: rejected between ${t.lowerMs === null ? '?' : formatMs(t.lowerMs)} and ${t.upperMs === null ? 'never (no rejection seen)' : formatMs(t.upperMs)}`,
  );
  if (t.lowerMs !== null && t.upperMs !== null) {
    marks.push(
      el('line', {
        x1: cx,
        x2: cx,
        y1: y(t.lowerMs),
        y2: y(t.upperMs),
        stroke: style.colour,
        'stroke-width': 2,
        'stroke-opacity': 0.45,
      }),
    );
  }
  const cy = t.upperMs === null ? top : y(t.upperMs);
  marks.push(
    marker(style.shape, cx, cy, 3.5, t.upperMs === null ? 'none' : style.colour, {
      stroke: over ? THRESHOLD : t.upperMs === null ? style.colour : null,
      'stroke-width': over ? 1.5 : null,
      'data-edge': t.edge,
      'data-trial': t.trial,
    }),
  );
  marks.push(tip);
  return marks;
}

/** Upper bound per trial and edge, with the [lower, upper] bracket, against the SLA line. */
export function revocationTrialsChart(data: RevocationBrackets, title: string): Svg {
  const styles = edgeStyles(data);
  const items: LegendItem[] = [
    ...styles.map((s) => ({ label: s.edge, colour: s.colour, shape: s.shape })),
    { label: 'SLA', colour: THRESHOLD, dashed: true },
  ];
  const top = topFor(items);
  const f = frame(720, 226 + top, { top, right: 20 });
  const trials = [...new Set(data.trials.map((t) => t.trial))].sort((a, b) => a - b);
  const index = new Map(trials.map((t, i) => [t, i]));
  const x = linear([-0.5, trials.length - 0.5], [f.left, f.width - f.right]);
  const y = linear([0, yMaxOf(data)], [f.height - f.bottom, f.top]);
  const slot = (x(1) - x(0)) * 0.6;
  const every = Math.max(1, Math.ceil(trials.length / 20));

  const parts: Svg[] = [
    axes(f, {
      x,
      y,
      xTicks: trials.map((_, i) => i).filter((i) => i % every === 0),
      xFormat: (i) => String(trials[i] ?? ''),
      yTicks: niceTicks(0, y.domain[1], 5),
      yFormat: formatAxisMs,
      xLabel: 'trial',
      yLabel: 'time from the revoke call until the edge rejected',
    }),
  ];
  const sy = y(data.slaMs);
  parts.push(
    el('line', {
      x1: f.left,
      x2: f.width - f.right,
      y1: sy,
      y2: sy,
      stroke: THRESHOLD,
      'stroke-width': 1.5,
      'stroke-dasharray': '6 4',
    }),
  );
  parts.push(
    text(f.width - f.right - 4, sy - 5, `SLA ${formatMs(data.slaMs)}`, {
      class: 'annotation threshold',
      'text-anchor': 'end',
    }),
  );

  styles.forEach((style, e) => {
    const dx = styles.length > 1 ? (e / (styles.length - 1) - 0.5) * slot : 0;
    const points: Svg[] = [];
    for (const t of data.trials.filter((t) => t.edge === style.edge)) {
      points.push(...trialMarks(t, style, x(index.get(t.trial) ?? 0) + dx, y, f.top, data.slaMs));
    }
    parts.push(group({ class: 'edge-series' }, points));
  });
  parts.push(legend(f, items));
  return chart(f, title, 'revocation-trials-chart', parts);
}

/** Empirical CDF of the upper bounds per edge; a rejection never seen counts as beyond the axis. */
export function revocationCdfChart(data: RevocationBrackets, title: string): Svg {
  const styles = edgeStyles(data);
  const bounds = styles.map((style) => data.trials.filter((t) => t.edge === style.edge).map((t) => t.upperMs));
  const items: LegendItem[] = styles.map((style, i) => {
    const mine = bounds[i] ?? [];
    const under = mine.filter((b) => b !== null && b < data.slaMs).length;
    return {
      label: `${style.edge} ${Math.round((under / Math.max(1, mine.length)) * 100)}% < SLA`,
      colour: style.colour,
      shape: style.shape,
    };
  });
  const top = topFor(items);
  const f = frame(720, 206 + top, { top, right: 20 });
  const x = linear([0, yMaxOf(data)], [f.left, f.width - f.right]);
  const y = linear([0, 1], [f.height - f.bottom, f.top]);
  const parts: Svg[] = [
    axes(f, {
      x,
      y,
      xTicks: niceTicks(0, x.domain[1], 6),
      xFormat: formatAxisMs,
      yTicks: [0, 0.25, 0.5, 0.75, 1],
      yFormat: (v) => `${Math.round(v * 100)}%`,
      xLabel: 'upper bound of the time until the edge rejected the revoked key',
      yLabel: 'share of trials',
    }),
  ];
  const sx = x(data.slaMs);
  parts.push(
    el('line', {
      x1: sx,
      x2: sx,
      y1: f.top,
      y2: f.height - f.bottom,
      stroke: THRESHOLD,
      'stroke-width': 1.5,
      'stroke-dasharray': '6 4',
    }),
  );
  parts.push(text(sx + 4, f.top + 10, `SLA ${formatMs(data.slaMs)}`, { class: 'annotation threshold' }));

  styles.forEach((style, i) => {
    const mine = bounds[i] ?? [];
    const seen = mine.filter((b): b is number => b !== null).sort((a, b) => a - b);
    const n = mine.length;
    let d = `M${x(0)},${y(0)}`;
    seen.forEach((b, k) => {
      d += `H${x(b)}V${y((k + 1) / n)}`;
    });
    d += `H${x.range[1]}`;
    parts.push(el('path', { d, fill: 'none', stroke: style.colour, 'stroke-width': 2, 'data-edge': style.edge }));
    seen.forEach((b, k) => parts.push(marker(style.shape, x(b), y((k + 1) / n), 2.5, style.colour)));
  });
  parts.push(legend(f, items));
  return chart(f, title, 'revocation-cdf-chart', parts);
}
