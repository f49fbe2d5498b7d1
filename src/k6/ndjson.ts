/**
 * Streams k6's `--out json` output (https://grafana.com/docs/k6/latest/results-output/real-time/json/):
 * one JSON object per line, `{"type":"Metric","metric":name,"data":{"type":"trend",...}}` once per
 * metric and `{"type":"Point","metric":name,"data":{"time":RFC3339,"value":n,"tags":{...}}}` per
 * sample. Files ending in `.gz` are gunzipped (k6 writes them so for `--out json=x.gz`).
 *
 * Lines that are not k6 JSON are counted and skipped, so a runner's `kubectl logs` (k6 log lines
 * around `--out json=-`) can be read as it is. Memory stays bounded: one line at a time.
 */
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { messageOf, UsageError } from '../util/errors.ts';

export interface K6Point {
  readonly metric: string;
  /** Epoch ms. */
  readonly timeMs: number;
  readonly value: number;
  readonly tags: Readonly<Record<string, string>>;
  /** Index of the file in the list read (a runner, unless the tags say which). */
  readonly file: number;
}

export interface K6ReadStats {
  readonly files: number;
  readonly lines: number;
  readonly points: number;
  /** Metric declarations seen, by name and type. */
  readonly metrics: Readonly<Record<string, string>>;
  /** Lines that were not k6 output (log lines, blank lines excluded). */
  readonly skipped: number;
  /** Lines that looked like JSON but did not parse (a truncated last line, usually). */
  readonly malformed: number;
  /** The files that held no k6 Metric or Point line at all: not k6 output. */
  readonly notK6: readonly string[];
}

/** Guard against a file that is one endless line: k6's lines are well under this. */
const MAX_LINE_CHARS = 1_000_000;

export async function assertReadable(files: readonly string[]): Promise<void> {
  if (files.length === 0) throw new UsageError('k6 ingest: name at least one k6 --out json file');
  const missing: string[] = [];
  for (const file of files) {
    try {
      await access(file);
    } catch {
      missing.push(file);
    }
  }
  if (missing.length > 0) throw new UsageError(`k6 ingest: cannot read ${missing.join(', ')}`);
}

/** Calls `onPoint` for every Point of every file, in file order then line order. */
export async function readK6Points(files: readonly string[], onPoint: (point: K6Point) => void): Promise<K6ReadStats> {
  await assertReadable(files);
  let lines = 0;
  let points = 0;
  let skipped = 0;
  let malformed = 0;
  const metrics: Record<string, string> = {};
  const notK6: string[] = [];
  for (const [index, file] of files.entries()) {
    let k6Lines = 0;
    const raw = createReadStream(file);
    const input = file.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
    const reader = createInterface({ input, crlfDelay: Infinity });
    try {
      for await (const line of reader) {
        lines += 1;
        const text = line.trim();
        if (text === '') continue;
        if (!text.startsWith('{') || text.length > MAX_LINE_CHARS) {
          skipped += 1;
          continue;
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          malformed += 1;
          continue;
        }
        const entry = parsed as {
          type?: unknown;
          metric?: unknown;
          data?: { type?: unknown; time?: unknown; value?: unknown; tags?: unknown };
        };
        if (entry.type === 'Metric' && typeof entry.metric === 'string') {
          metrics[entry.metric] = typeof entry.data?.type === 'string' ? entry.data.type : 'unknown';
          k6Lines += 1;
          continue;
        }
        if (
          entry.type !== 'Point' ||
          typeof entry.metric !== 'string' ||
          typeof entry.data !== 'object' ||
          entry.data === null
        ) {
          // JSON log lines (--log-format=json) and anything else that is not a sample.
          skipped += 1;
          continue;
        }
        const timeMs = typeof entry.data.time === 'string' ? Date.parse(entry.data.time) : Number.NaN;
        const value = entry.data.value;
        if (!Number.isFinite(timeMs) || typeof value !== 'number') {
          malformed += 1;
          continue;
        }
        points += 1;
        k6Lines += 1;
        onPoint({ metric: entry.metric, timeMs, value, tags: stringTags(entry.data.tags), file: index });
      }
    } catch (error) {
      throw new UsageError(`k6 ingest: cannot read ${file} (${messageOf(error).split('\n')[0]})`);
    } finally {
      reader.close();
      raw.destroy();
    }
    if (k6Lines === 0) notK6.push(file);
  }
  return { files: files.length, lines, points, metrics, skipped, malformed, notK6 };
}

/**
 * A file the user named that holds no k6 output at all is their mistake, not a run to judge: one line
 * naming it (and what it held), exit 2. (`run --engine k6` reads what k6 wrote, even nothing.)
 */
export function refuseNotK6(stats: K6ReadStats): void {
  const [file, ...more] = stats.notK6;
  if (file === undefined) return;
  const others = more.length > 0 ? ` (and ${more.length} more)` : '';
  throw new UsageError(
    `k6 ingest: ${file}${others} holds no k6 Metric or Point line: name a file k6 wrote with --out json=FILE (or a runner's kubectl logs of --out json=-)`,
  );
}

function stringTags(tags: unknown): Record<string, string> {
  if (typeof tags !== 'object' || tags === null) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(tags)) {
    if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
  }
  return out;
}
