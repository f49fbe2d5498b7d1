/**
 * Latency percentiles per check (p50, p90, p99, max) on a log axis. Latency is measured from when a
 * request should have been sent (intendedAt, open-model drivers) or was sent, to its response headers.
 */
import type { LatencySummary } from '../observation-digest.ts';
import { OKABE_ITO } from '../palette.ts';
import {
  chart,
  el,
  formatAxisMs,
  formatMs,
  frame,
  group,
  legend,
  log10,
  logTicks,
  marker,
  text,
  tooltip,
  topFor,
  type Shape,
  type Svg,
} from './svg.ts';

const PERCENTILES = [
  { key: 'p50', label: 'p50', colour: OKABE_ITO.blue, shape: 'circle' },
  { key: 'p90', label: 'p90', colour: OKABE_ITO.bluishGreen, shape: 'square' },
  { key: 'p99', label: 'p99', colour: OKABE_ITO.orange, shape: 'triangle' },
  { key: 'max', label: 'max', colour: OKABE_ITO.vermillion, shape: 'diamond' },
] as const satisfies readonly { key: keyof LatencySummary; label: string; colour: string; shape: Shape }[];

const ROW = 22;

export function latencyChart(rows: readonly LatencySummary[], title: string): Svg | null {
  if (rows.length === 0) return null;
  const items = PERCENTILES.map((p) => ({ label: p.label, colour: p.colour, shape: p.shape }));
  const top = topFor(items) - 14;
  const f = frame(720, top + 36 + 12 + rows.length * ROW, { left: 150, top, right: 24 });
  const lo = Math.max(0.001, Math.min(...rows.map((r) => r.p50)) / 1.5);
  const hi = Math.max(lo * 10, Math.max(...rows.map((r) => r.max)) * 1.5);
  const min = 10 ** Math.floor(Math.log10(lo));
  const max = 10 ** Math.ceil(Math.log10(hi));
  const x = log10([min, max], [f.left, f.width - f.right]);
  const bottom = f.height - f.bottom;

  const parts: Svg[] = [];
  for (const t of logTicks(min, max)) {
    parts.push(el('line', { x1: x(t), x2: x(t), y1: f.top, y2: bottom, class: 'grid' }));
    parts.push(text(x(t), bottom + 15, formatAxisMs(t), { class: 'tick', 'text-anchor': 'middle' }));
  }
  parts.push(el('line', { x1: f.left, x2: f.width - f.right, y1: bottom, y2: bottom, class: 'axis' }));
  parts.push(
    text((f.left + f.width - f.right) / 2, f.height - 4, 'latency to response headers (log scale)', {
      class: 'axis-label',
      'text-anchor': 'middle',
    }),
  );

  rows.forEach((row, i) => {
    const cy = f.top + 6 + i * ROW + ROW / 2;
    const items: Svg[] = [
      text(f.left - 8, cy + 4, row.check, { class: 'row-label', 'text-anchor': 'end' }),
      el('line', { x1: x(row.p50), x2: x(row.max), y1: cy, y2: cy, class: 'range' }),
    ];
    for (const p of PERCENTILES) items.push(marker(p.shape, x(row[p.key]), cy, 4, p.colour, { 'data-p': p.key }));
    items.push(
      tooltip(
        `${row.check}: ${row.count} responses; p50 ${formatMs(row.p50)}, p90 ${formatMs(row.p90)}, p99 ${formatMs(row.p99)}, max ${formatMs(row.max)}`,
      ),
    );
    parts.push(group({ class: 'latency-row' }, items));
  });
  parts.push(legend(f, items));
  return chart(f, title, 'latency-chart', parts);
}
