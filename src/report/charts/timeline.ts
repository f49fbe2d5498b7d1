/** Responses over time, stacked by status class, bucketed (from the observations file). */
import { STATUS_CLASSES, STATUS_CLASS_LABEL, type TimelineBucket } from '../observation-digest.ts';
import { STATUS_COLOUR } from '../palette.ts';
import { axes, chart, el, frame, tooltip, group, legend, linear, niceMax, niceTicks, topFor, type Svg } from './svg.ts';

const seconds = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000}s` : `${+(ms / 1000).toFixed(2)}s`);

export function timelineChart(buckets: readonly TimelineBucket[], bucketMs: number, title: string): Svg | null {
  if (buckets.length === 0) return null;
  const present = STATUS_CLASSES.filter((cls) => buckets.some((b) => b.counts[cls] > 0));
  const items = present.map((cls) => ({ label: STATUS_CLASS_LABEL[cls], colour: STATUS_COLOUR[cls] }));
  const top = topFor(items);
  const f = frame(720, 206 + top, { top });
  const totals = buckets.map((b) => STATUS_CLASSES.reduce((sum, c) => sum + b.counts[c], 0));
  const endMs = buckets.length * bucketMs;
  const x = linear([0, endMs], [f.left, f.width - f.right]);
  const y = linear([0, niceMax(Math.max(1, ...totals))], [f.height - f.bottom, f.top]);
  const barWidth = Math.max(1, x(bucketMs) - x(0) - (buckets.length > 60 ? 0.5 : 1.5));

  const bars: Svg[] = [];
  for (const bucket of buckets) {
    let base = 0;
    for (const cls of STATUS_CLASSES) {
      const n = bucket.counts[cls];
      if (n === 0) continue;
      bars.push(
        el(
          'rect',
          {
            x: x(bucket.startMs),
            y: y(base + n),
            width: barWidth,
            height: Math.max(0.5, y(base) - y(base + n)),
            fill: STATUS_COLOUR[cls],
            'data-status': cls,
          },
          tooltip(
            `${seconds(bucket.startMs)}–${seconds(bucket.startMs + bucketMs)}: ${n} × ${STATUS_CLASS_LABEL[cls]}`,
          ),
        ),
      );
      base += n;
    }
  }
  return chart(f, title, 'timeline-chart', [
    axes(f, {
      x,
      y,
      xTicks: niceTicks(0, endMs / 1000, 8).map((s) => s * 1000),
      yTicks: niceTicks(0, y.domain[1], 4),
      xFormat: seconds,
      xLabel: `time since the run started (bars of ${seconds(bucketMs)})`,
      yLabel: 'responses per bar',
    }),
    group({ class: 'bars' }, bars),
    legend(f, items),
  ]);
}
