/**
 * Just enough SVG to draw the report's charts at build time: escaped elements, scales and ticks.
 * Every text and attribute value goes through `esc`, so data can never inject markup.
 */

/** Markup built here; the template inserts it unescaped, so only this module may make one. */
export type Svg = string & { readonly __svg: unique symbol };

export function esc(value: string | number): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

type Attrs = Readonly<Record<string, string | number | null | undefined>>;

const fmt = (v: string | number): string => (typeof v === 'number' ? String(Math.round(v * 100) / 100) : v);

/** An element with escaped attributes; children are markup made by `el`/`text` (or nothing). */
export function el(tag: string, attrs: Attrs, ...children: readonly Svg[]): Svg {
  const attributes = Object.entries(attrs)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => ` ${k}="${esc(fmt(v as string | number))}"`)
    .join('');
  return (children.length > 0 ? `<${tag}${attributes}>${children.join('')}</${tag}>` : `<${tag}${attributes}/>`) as Svg;
}

export function text(x: number, y: number, content: string | number, attrs: Attrs = {}): Svg {
  return `<text x="${fmt(x)}" y="${fmt(y)}"${Object.entries(attrs)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => ` ${k}="${esc(fmt(v as string | number))}"`)
    .join('')}>${esc(content)}</text>` as Svg;
}

export function group(attrs: Attrs, children: readonly Svg[]): Svg {
  return el('g', attrs, ...children);
}

export interface Frame {
  readonly width: number;
  readonly height: number;
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

export const frame = (
  width: number,
  height: number,
  margins: Partial<Omit<Frame, 'width' | 'height'>> = {},
): Frame => ({
  width,
  height,
  left: margins.left ?? 52,
  right: margins.right ?? 16,
  top: margins.top ?? 30,
  bottom: margins.bottom ?? 36,
});

/** The whole chart: a scalable SVG with an accessible title. */
export function chart(f: Frame, title: string, className: string, children: readonly Svg[]): Svg {
  return el(
    'svg',
    {
      xmlns: 'http://www.w3.org/2000/svg',
      viewBox: `0 0 ${f.width} ${f.height}`,
      class: `chart ${className}`,
      role: 'img',
      'aria-label': title,
      preserveAspectRatio: 'xMidYMid meet',
    },
    tooltip(title),
    ...children,
  );
}

export interface Scale {
  (value: number): number;
  readonly domain: readonly [number, number];
  readonly range: readonly [number, number];
}

export function linear(domain: readonly [number, number], range: readonly [number, number]): Scale {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  const span = d1 - d0 || 1;
  const scale = ((value: number) => r0 + ((value - d0) / span) * (r1 - r0)) as Scale;
  return Object.assign(scale, { domain, range });
}

export function log10(domain: readonly [number, number], range: readonly [number, number]): Scale {
  const lo = Math.log10(domain[0]);
  const hi = Math.log10(domain[1]);
  const inner = linear([lo, hi], range);
  const scale = ((value: number) => inner(Math.log10(Math.max(value, domain[0])))) as Scale;
  return Object.assign(scale, { domain, range });
}

/** Round tick values (1, 2, 5 × 10^n) spanning [min, max]. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) ticks.push(Math.round(v / step) * step);
  return ticks;
}

/** The upper end of a nice axis covering `max`. */
export function niceMax(max: number, count = 5): number {
  if (!(max > 0)) return 1;
  const ticks = niceTicks(0, max, count);
  const last = ticks[ticks.length - 1] ?? max;
  return last >= max ? last : last + (ticks[1] ?? max) - (ticks[0] ?? 0);
}

/** Powers of ten (and 2, 5 between them when few) spanning a log axis. */
export function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e += 1) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= min * 0.999 && v <= max * 1.001) ticks.push(v);
    }
  }
  return ticks.length > 8 ? ticks.filter((v) => Math.abs(Math.log10(v) % 1) < 1e-9) : ticks;
}

/** ms in a short human unit: 850 µs, 12.3 ms, 2.41 s. */
export function formatMs(ms: number): string {
  if (ms < 1) return `${Math.round(ms * 1000)} µs`;
  if (ms < 10) return `${+ms.toFixed(2)} ms`;
  if (ms < 1000) return `${+ms.toFixed(1)} ms`;
  if (ms < 60_000) return `${+(ms / 1000).toFixed(2)} s`;
  return `${+(ms / 60_000).toFixed(1)} min`;
}

export function formatAxisMs(ms: number): string {
  if (ms === 0) return '0';
  if (ms < 1) return `${+(ms * 1000).toFixed(0)}µs`;
  if (ms < 1000) return `${+ms.toFixed(1)}ms`;
  return `${+(ms / 1000).toFixed(2)}s`;
}

export interface Axes {
  readonly x: Scale;
  readonly y: Scale;
  readonly xTicks: readonly number[];
  readonly yTicks: readonly number[];
  readonly xFormat?: (v: number) => string;
  readonly yFormat?: (v: number) => string;
  readonly xLabel?: string;
  readonly yLabel?: string;
}

/** Grid lines, tick labels and axis titles. */
export function axes(f: Frame, a: Axes): Svg {
  const xf = a.xFormat ?? String;
  const yf = a.yFormat ?? String;
  const bottom = f.height - f.bottom;
  const parts: Svg[] = [];
  for (const t of a.yTicks) {
    const y = a.y(t);
    parts.push(el('line', { x1: f.left, x2: f.width - f.right, y1: y, y2: y, class: 'grid' }));
    parts.push(text(f.left - 6, y + 3.5, yf(t), { class: 'tick', 'text-anchor': 'end' }));
  }
  for (const t of a.xTicks) {
    const x = a.x(t);
    parts.push(el('line', { x1: x, x2: x, y1: bottom, y2: bottom + 4, class: 'axis' }));
    parts.push(text(x, bottom + 15, xf(t), { class: 'tick', 'text-anchor': 'middle' }));
  }
  parts.push(el('line', { x1: f.left, x2: f.width - f.right, y1: bottom, y2: bottom, class: 'axis' }));
  parts.push(el('line', { x1: f.left, x2: f.left, y1: f.top, y2: bottom, class: 'axis' }));
  if (a.xLabel)
    parts.push(
      text((f.left + f.width - f.right) / 2, f.height - 4, a.xLabel, { class: 'axis-label', 'text-anchor': 'middle' }),
    );
  if (a.yLabel) parts.push(text(f.left, f.top - 10, a.yLabel, { class: 'axis-label', 'text-anchor': 'start' }));
  return group({ class: 'axes' }, parts);
}

export interface LegendItem {
  readonly label: string;
  readonly colour: string;
  readonly shape?: Shape;
  readonly dashed?: boolean;
}

const LEGEND_ROW = 16;
/** Rough width of 11 px system-ui text per character, generous so labels never touch. */
const LEGEND_CHAR = 6.4;
const itemWidth = (item: LegendItem): number => 30 + item.label.length * LEGEND_CHAR;

/** Legend items in rows no wider than the chart (long labels, many edges wrap). */
function legendRows(items: readonly LegendItem[], width: number): LegendItem[][] {
  const rows: LegendItem[][] = [];
  let row: LegendItem[] = [];
  let used = 0;
  for (const item of items) {
    if (row.length > 0 && used + itemWidth(item) > width - 16) {
      rows.push(row);
      row = [];
      used = 0;
    }
    row.push(item);
    used += itemWidth(item);
  }
  if (row.length > 0) rows.push(row);
  return rows;
}

/** The top margin a chart of `width` needs for its legend rows and, below them, the y-axis title. */
export function topFor(items: readonly LegendItem[], width = 720): number {
  return 20 + Math.max(1, legendRows(items, width).length) * LEGEND_ROW + 14;
}

/** The legend, right-aligned at the top of the frame, wrapped into rows (size the frame with `topFor`). */
export function legend(f: Frame, items: readonly LegendItem[]): Svg {
  const parts: Svg[] = [];
  legendRows(items, f.width).forEach((row, r) => {
    const y = 12 + r * LEGEND_ROW;
    let x = f.width - f.right - row.reduce((sum, item) => sum + itemWidth(item), 0) + 10;
    for (const item of row) {
      parts.push(
        item.dashed
          ? el('line', {
              x1: x,
              x2: x + 14,
              y1: y,
              y2: y,
              stroke: item.colour,
              'stroke-width': 2,
              'stroke-dasharray': '4 3',
            })
          : marker(item.shape ?? 'square', x + 7, y, 5, item.colour),
      );
      parts.push(text(x + 19, y + 4, item.label, { class: 'legend' }));
      x += itemWidth(item);
    }
  });
  return group({ class: 'legend' }, parts);
}

export type Shape = 'circle' | 'square' | 'triangle' | 'diamond';
export const SHAPES: readonly Shape[] = ['circle', 'square', 'triangle', 'diamond'];

/** A point marker; shape as well as colour tells series apart (colour-blind readers, greyscale print). */
export function marker(shape: Shape, x: number, y: number, r: number, colour: string, attrs: Attrs = {}): Svg {
  switch (shape) {
    case 'circle':
      return el('circle', { cx: x, cy: y, r, fill: colour, ...attrs });
    case 'square':
      return el('rect', { x: x - r, y: y - r, width: 2 * r, height: 2 * r, fill: colour, ...attrs });
    case 'triangle':
      return el('path', {
        d: `M${fmt(x)},${fmt(y - r * 1.15)}L${fmt(x + r * 1.1)},${fmt(y + r * 0.85)}L${fmt(x - r * 1.1)},${fmt(y + r * 0.85)}Z`,
        fill: colour,
        ...attrs,
      });
    case 'diamond':
      return el('path', {
        d: `M${fmt(x)},${fmt(y - r * 1.3)}L${fmt(x + r * 1.1)},${fmt(y)}L${fmt(x)},${fmt(y + r * 1.3)}L${fmt(x - r * 1.1)},${fmt(y)}Z`,
        fill: colour,
        ...attrs,
      });
  }
}

/** A polyline path through points; null y values break the line. */
export function linePath(points: readonly (readonly [number, number | null])[]): string {
  let d = '';
  let pen = false;
  for (const [x, y] of points) {
    if (y === null) {
      pen = false;
      continue;
    }
    d += `${pen ? 'L' : 'M'}${fmt(x)},${fmt(y)}`;
    pen = true;
  }
  return d;
}

/** A hover tooltip (SVG <title>), escaped. */
export function tooltip(content: string): Svg {
  return el('title', {}, esc(content) as Svg);
}
