/**
 * Writes k6 `--out json` NDJSON as k6 documents it (https://grafana.com/docs/k6/latest/results-output/
 * real-time/json/): a `Metric` line before a metric's first `Point`, then one `Point` per sample with
 * RFC 3339 time, value and tags; the tags are those the tiergate scripts set (scenarios/k6/lib).
 */
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

/** A window boundary: Mon, 24 Nov 2025 16:00:00 GMT, a multiple of 60. */
export const T0_S = 1_764_000_000;

export interface Response {
  readonly org: string;
  readonly status: number;
  readonly remaining: number | null;
  readonly limit?: number;
  /** Seconds after T0 the response came. */
  readonly atS: number;
  readonly latencyMs?: number;
  readonly phase?: string;
  readonly tier?: string;
  readonly instance?: string;
  readonly windowS?: number;
}

const METRIC_TYPES: Record<string, [string, string]> = {
  http_req_duration: ['trend', 'time'],
  http_reqs: ['counter', 'default'],
  http_req_failed: ['rate', 'default'],
  tiergate_remaining: ['trend', 'default'],
  dropped_iterations: ['counter', 'default'],
};

export class K6Output {
  readonly #lines: string[] = [];
  readonly #declared = new Set<string>();

  #point(metric: string, atMs: number, value: number, tags: Record<string, string>): void {
    if (!this.#declared.has(metric)) {
      this.#declared.add(metric);
      const [type, contains] = METRIC_TYPES[metric] ?? ['trend', 'default'];
      this.#lines.push(
        JSON.stringify({
          type: 'Metric',
          data: { name: metric, type, contains, thresholds: [], submetrics: null },
          metric,
        }),
      );
    }
    // k6 writes nanosecond RFC 3339 times with the runner's offset.
    const time = new Date(atMs).toISOString().replace(/\.(\d{3})Z$/, '.$1421337+00:00');
    this.#lines.push(JSON.stringify({ metric, type: 'Point', data: { time, value, tags } }));
  }

  response(r: Response): this {
    const windowS = r.windowS ?? 60;
    const atMs = (T0_S + r.atS) * 1000;
    const reset = (Math.floor((T0_S + r.atS) / windowS) + 1) * windowS;
    const common = {
      phase: r.phase ?? 'over-quota',
      scenario: r.phase ?? 'over-quota',
      tier: r.tier ?? 'starter',
      ...(r.instance ? { instance_id: r.instance } : {}),
    };
    const expected = (r.status >= 200 && r.status < 300) || r.status === 429;
    this.#point('http_reqs', atMs, 1, {
      ...common,
      org: r.org,
      status: String(r.status),
      method: 'GET',
      name: 'http://127.0.0.1:8080/recruiter/jobs',
      expected_response: String(expected),
    });
    this.#point('http_req_duration', atMs, r.latencyMs ?? 3.25, {
      ...common,
      org: r.org,
      status: String(r.status),
      method: 'GET',
      name: 'http://127.0.0.1:8080/recruiter/jobs',
      expected_response: String(expected),
    });
    this.#point('http_req_failed', atMs, expected ? 0 : 1, {
      ...common,
      org: r.org,
      status: String(r.status),
      expected_response: String(expected),
    });
    this.#point('tiergate_remaining', atMs, r.remaining ?? -1, {
      ...common,
      org: r.org,
      status: String(r.status),
      window: String(reset),
      limit: String(r.limit ?? 60),
      date: new Date(Math.floor(T0_S + r.atS) * 1000).toUTCString(),
    });
    return this;
  }

  /** `count` admitted responses (Remaining counting down from `from`), then `rejected` 429s at Remaining 0. */
  window(
    org: string,
    count: number,
    options: {
      from?: number;
      rejected?: number;
      startS?: number;
      instance?: string;
      latencyMs?: number;
      phase?: string;
    } = {},
  ): this {
    const from = options.from ?? 59;
    let at = options.startS ?? 1;
    for (let i = 0; i < count; i++)
      this.response({ org, status: 200, remaining: Math.max(0, from - i), atS: (at += 0.1), ...pick(options) });
    for (let i = 0; i < (options.rejected ?? 0); i++)
      this.response({ org, status: 429, remaining: 0, atS: (at += 0.1), latencyMs: 1.5, ...pick(options, false) });
    return this;
  }

  dropped(count: number, phase = 'over-quota', instance?: string): this {
    this.#point('dropped_iterations', (T0_S + 30) * 1000, count, {
      phase,
      scenario: phase,
      tier: 'starter',
      ...(instance ? { instance_id: instance } : {}),
    });
    return this;
  }

  raw(line: string): this {
    this.#lines.push(line);
    return this;
  }

  text(): string {
    return `${this.#lines.join('\n')}\n`;
  }

  write(file: string): string {
    writeFileSync(file, file.endsWith('.gz') ? gzipSync(this.text()) : this.text());
    return file;
  }
}

function pick(o: { instance?: string; latencyMs?: number; phase?: string }, withLatency = true) {
  return {
    ...(o.instance ? { instance: o.instance } : {}),
    ...(withLatency && o.latencyMs !== undefined ? { latencyMs: o.latencyMs } : {}),
    ...(o.phase ? { phase: o.phase } : {}),
  };
}
