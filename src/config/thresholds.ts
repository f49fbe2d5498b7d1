/**
 * k6 threshold expressions, parsed: `'http_req_duration{status:429}': ['p(95)<100']`.
 *
 * The grammar is k6's (https://grafana.com/docs/k6/latest/using-k6/thresholds/): a metric name with
 * an optional `{tag:value,...}` filter as the key, and per expression `aggregation operator number`,
 * where the aggregation must suit the metric's type (Trend: avg, min, max, med, p(N); Rate: rate;
 * Counter: count, rate). Everything wrong with a scenario's thresholds is reported in one UsageError
 * line naming each malformed expression. Pure.
 */
import { UsageError } from '../util/errors.ts';

export const METRIC_TYPES = ['trend', 'rate', 'counter'] as const;
export type MetricType = (typeof METRIC_TYPES)[number];

/** The metrics a threshold may name: k6's built-in HTTP metrics, measured alike by both engines. */
export const THRESHOLD_METRICS = {
  /** Latency, ms: harness from the intended send time (LATENCY_POLICY); k6 its own request duration. */
  http_req_duration: 'trend',
  /** Share of responses that were not expected (not 2xx and not 429, or no response at all). */
  http_req_failed: 'rate',
  /** Responses received. */
  http_reqs: 'counter',
  /** Requests scheduled but never sent (harness: past the phase's time bound; k6: dropped_iterations). */
  dropped_iterations: 'counter',
} as const satisfies Record<string, MetricType>;
export type ThresholdMetric = keyof typeof THRESHOLD_METRICS;

/** Tags a filter may use; `scenario` is k6's name for a phase and means the same here. */
export const THRESHOLD_TAGS = ['status', 'expected_response', 'phase', 'scenario', 'tier'] as const;
export type ThresholdTag = (typeof THRESHOLD_TAGS)[number];

export type Aggregation =
  | { readonly kind: 'avg' | 'min' | 'max' | 'med' | 'count' | 'rate' }
  | { readonly kind: 'p'; readonly percentile: number };

export const OPERATORS = ['<', '<=', '>', '>=', '==', '===', '!='] as const;
export type Operator = (typeof OPERATORS)[number];

const AGGREGATIONS_BY_TYPE: Readonly<Record<MetricType, readonly Aggregation['kind'][]>> = {
  trend: ['avg', 'min', 'max', 'med', 'p'],
  rate: ['rate'],
  counter: ['count', 'rate'],
};

export interface Threshold {
  /** The key as written: `http_req_duration{status:429}`. */
  readonly key: string;
  /** The expression as written: `p(95)<100`. */
  readonly source: string;
  readonly metric: ThresholdMetric;
  readonly type: MetricType;
  /** Tag filter; a `scenario` filter is stored as `phase`. */
  readonly filter: Readonly<Partial<Record<Exclude<ThresholdTag, 'scenario'>, string>>>;
  readonly aggregation: Aggregation;
  readonly operator: Operator;
  readonly value: number;
}

const KEY = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\{([^{}]*)\})?\s*$/;
const EXPRESSION =
  /^\s*(avg|min|max|med|count|rate|p\(\s*(\d+(?:\.\d+)?)\s*\))\s*(===|==|!=|>=|<=|>|<)\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*$/;

type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

/** `http_req_duration{status:429,tier:starter}` → metric and filter. */
export function parseThresholdKey(key: string): Parsed<Pick<Threshold, 'metric' | 'type' | 'filter'>> {
  const match = KEY.exec(key);
  if (!match) return { ok: false, problem: `'${key}' is not a metric name with an optional {tag:value} filter` };
  const name = match[1]!;
  if (!Object.hasOwn(THRESHOLD_METRICS, name)) {
    return {
      ok: false,
      problem: `'${key}': unknown metric ${name} (known: ${Object.keys(THRESHOLD_METRICS).join(', ')})`,
    };
  }
  const metric = name as ThresholdMetric;
  const filter: Partial<Record<Exclude<ThresholdTag, 'scenario'>, string>> = {};
  const body = match[2];
  if (body !== undefined) {
    for (const part of body.split(',')) {
      const colon = part.indexOf(':');
      const tag = (colon < 0 ? part : part.slice(0, colon)).trim();
      const value = colon < 0 ? '' : unquote(part.slice(colon + 1).trim());
      if (colon < 0 || tag === '' || value === '')
        return { ok: false, problem: `'${key}': filter part '${part.trim()}' is not tag:value` };
      if (!(THRESHOLD_TAGS as readonly string[]).includes(tag)) {
        return { ok: false, problem: `'${key}': unknown tag ${tag} (known: ${THRESHOLD_TAGS.join(', ')})` };
      }
      const name = tag === 'scenario' ? 'phase' : (tag as Exclude<ThresholdTag, 'scenario'>);
      if (filter[name] !== undefined && filter[name] !== value)
        return { ok: false, problem: `'${key}': tag ${name} is filtered twice` };
      filter[name] = value;
    }
  }
  return { ok: true, value: { metric, type: THRESHOLD_METRICS[metric], filter } };
}

/** `p(95)<300` → aggregation, operator, value (not yet checked against a metric type). */
export function parseThresholdExpression(
  source: string,
): Parsed<Pick<Threshold, 'aggregation' | 'operator' | 'value'>> {
  const match = EXPRESSION.exec(source);
  if (!match) {
    return {
      ok: false,
      problem: `'${source}' is not a k6 threshold expression (like 'p(95)<300', 'avg<200', 'rate<0.01', 'count>0')`,
    };
  }
  const [, method, percentile, operator, value] = match;
  let aggregation: Aggregation;
  if (percentile !== undefined) {
    const p = Number(percentile);
    if (!(p >= 0 && p <= 100)) return { ok: false, problem: `'${source}': percentile ${percentile} is outside 0-100` };
    aggregation = { kind: 'p', percentile: p };
  } else {
    aggregation = { kind: method as Exclude<Aggregation['kind'], 'p'> };
  }
  return { ok: true, value: { aggregation, operator: operator as Operator, value: Number(value) } };
}

/** One key and one expression; null and a problem when either is malformed or they do not fit. */
export function parseThreshold(key: string, source: string): Parsed<Threshold> {
  const k = parseThresholdKey(key);
  if (!k.ok) return k;
  const e = parseThresholdExpression(source);
  if (!e.ok) return { ok: false, problem: `${key}: ${e.problem}` };
  const allowed = AGGREGATIONS_BY_TYPE[k.value.type];
  if (!allowed.includes(e.value.aggregation.kind)) {
    const names = allowed.map((a) => (a === 'p' ? 'p(N)' : a)).join(', ');
    return {
      ok: false,
      problem: `${key}: '${source}' uses ${aggregationName(e.value.aggregation)}, which a ${k.value.type} metric does not have (use ${names})`,
    };
  }
  return { ok: true, value: { key, source, ...k.value, ...e.value } };
}

/**
 * A scenario's thresholds, all parsed; every malformed one is named in a single UsageError line.
 * `where` prefixes the message, e.g. `scenario starter: load.thresholds`.
 */
export function parseThresholds(
  record: Readonly<Record<string, readonly string[]>>,
  where = 'load.thresholds',
): readonly Threshold[] {
  const parsed: Threshold[] = [];
  const problems: string[] = [];
  for (const [key, expressions] of Object.entries(record)) {
    if (!Array.isArray(expressions) || expressions.length === 0) {
      problems.push(`${key}: expected a list of expressions like ['p(95)<300']`);
      continue;
    }
    for (const source of expressions) {
      if (typeof source !== 'string') {
        problems.push(`${key}: ${JSON.stringify(source)} is not a string expression`);
        continue;
      }
      const result = parseThreshold(key, source);
      if (result.ok) parsed.push(result.value);
      else problems.push(result.problem);
    }
  }
  if (problems.length > 0) throw new UsageError(`${where}: ${problems.join('; ')}`, 'TG_SCENARIO');
  return parsed;
}

export function aggregationName(a: Aggregation): string {
  return a.kind === 'p' ? `p(${a.percentile})` : a.kind;
}

/** `http_req_duration{status:429} p(95)<100`. */
export function describeThreshold(t: Threshold): string {
  return `${t.key.trim()} ${t.source.trim()}`;
}

export function compare(observed: number, operator: Operator, target: number): boolean {
  switch (operator) {
    case '<':
      return observed < target;
    case '<=':
      return observed <= target;
    case '>':
      return observed > target;
    case '>=':
      return observed >= target;
    case '==':
    case '===':
      return observed === target;
    case '!=':
      return observed !== target;
  }
}

function unquote(value: string): string {
  const quoted = /^(['"])(.*)\1$/.exec(value);
  return quoted ? quoted[2]! : value;
}
