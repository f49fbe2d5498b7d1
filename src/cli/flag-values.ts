/**
 * A flag's text to a typed value. Every mistake is a UsageError: one line naming the flag, what was
 * given and what is expected (exit 2). An absent flag (undefined) stays undefined: its default is
 * the caller's, from the constant the help shows.
 */
import { LIMIT_FIELDS, type LimitField, type OrgLimits } from '../contract/types.ts';
import { UsageError } from '../util/errors.ts';
import { TARGET_LIMITS } from '../reference-server/options.ts';
import { formatDurationMs, parseDurationMs } from '../util/duration.ts';

/** Longer than this is surely a typo, and past 2^31 ms Node's timers fire at once. */
export const MAX_DURATION_MS = 600_000;

/** The reference target's limits on its window (whole seconds) and on edges. */
const MAX_WINDOW_MS = TARGET_LIMITS.windowMs;
export const MAX_EDGES = TARGET_LIMITS.edges;

const shown = (raw: string) => raw || '(empty)';

/** `run` and `profile`: a duration above zero, at most 10m; windows in whole seconds. */
export function duration(flag: string, raw: string, { wholeSeconds = false } = {}): number {
  const ms = parseDurationMs(raw);
  if (ms === null || ms === 0) throw new UsageError(`--${flag} ${raw}: expected a duration like 300ms, 3s or 1m`);
  if (ms > MAX_DURATION_MS) throw new UsageError(`--${flag} ${raw}: at most ${formatDurationMs(MAX_DURATION_MS)}`);
  if (wholeSeconds && ms % 1000 !== 0)
    throw new UsageError(`--${flag} ${raw}: windows are whole seconds, like 3s or 60s`);
  return ms;
}

/** `serve` and `k6`: a quota window of the reference target's range, whole seconds from 1s to 24h. */
export function windowLength(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const ms = parseDurationMs(raw);
  if (ms === null) throw new UsageError(`--window ${shown(raw)}: expected a duration like 3s`);
  if (ms < 1000 || ms % 1000 !== 0 || ms > MAX_WINDOW_MS) {
    throw new UsageError(`--window ${raw}: expected whole seconds from 1s to 24h, like 3s or 1m`);
  }
  return ms;
}

/** Whole milliseconds from 0 to `max`, written as a duration (300ms, 1s) or a bare number of ms. */
export function milliseconds(flag: string, raw: string | undefined, max: number, example: string): number | undefined {
  if (raw === undefined) return undefined;
  const ms = parseDurationMs(raw);
  if (ms === null || !Number.isInteger(ms) || ms > max) {
    throw new UsageError(
      `--${flag} ${shown(raw)}: expected a duration like ${example}, at most ${formatDurationMs(max)}`,
    );
  }
  return ms;
}

/** Digits only: no sign, no fraction, no exponent. */
function wholeNumber(raw: string): number {
  return /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
}

/** `run`: a number of things, from 1 to `max`. */
export function count(flag: string, raw: string | undefined, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const value = wholeNumber(raw);
  if (!Number.isSafeInteger(value) || value < 1 || value > max)
    throw new UsageError(`--${flag} ${shown(raw)}: expected a whole number from 1 to ${max}`);
  return value;
}

/** `serve`: an integer from `min` to `max` (ports, edges). */
export function integer(flag: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const value = wholeNumber(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max)
    throw new UsageError(`--${flag} ${shown(raw)}: expected an integer from ${min} to ${max}`);
  return value;
}

/** One name of `allowed`; undefined when the flag is absent. */
export function oneOf<T extends string>(flag: string, raw: string | undefined, allowed: readonly T[]): T | undefined {
  if (raw === undefined) return undefined;
  const name = allowed.find((a) => a === raw.trim());
  if (name === undefined) throw new UsageError(`--${flag} ${shown(raw)}: expected one of ${allowed.join(', ')}`);
  return name;
}

/** Comma-separated names, each one of `allowed`; null when the flag is absent. */
export function list<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T[] | null {
  if (value === undefined) return null;
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = items.filter((i) => !(allowed as readonly string[]).includes(i));
  if (items.length === 0 || unknown.length > 0) {
    throw new UsageError(
      `--${flag} ${value}: unknown ${unknown.join(', ') || '(empty)'}; choose from ${allowed.join(', ')}`,
    );
  }
  return items as T[];
}

/** `init`: an organization's own figures, `read=10000,ingest=2000,concurrency=250`, each optional, at least one. */
export function orgLimits(flag: string, raw: string | undefined): Partial<OrgLimits> | undefined {
  if (raw === undefined) return undefined;
  const limits: Partial<Record<LimitField, number>> = {};
  const example = `e.g. --${flag} read=10000,ingest=2000,concurrency=250`;
  for (const item of raw.split(',').map((s) => s.trim())) {
    const [name = '', value = '', ...rest] = item.split('=').map((s) => s.trim());
    const field = LIMIT_FIELDS.find((f) => f === name);
    if (!field || rest.length > 0)
      throw new UsageError(`--${flag} ${shown(raw)}: expected figures named ${LIMIT_FIELDS.join(', ')} (${example})`);
    const figure = wholeNumber(value);
    if (!Number.isSafeInteger(figure) || figure < 1)
      throw new UsageError(`--${flag} ${raw}: ${field} ${shown(value)} is not a whole number above 0 (${example})`);
    if (limits[field] !== undefined)
      throw new UsageError(`--${flag} ${raw}: ${field} given twice; name each figure once`);
    limits[field] = figure;
  }
  return limits;
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
};
const MAX_BYTES = 1024 ** 3;

/** A size: 5MiB, 512KiB or a bare number of bytes (K and M are 1024-based). */
export function bytes(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(raw);
  const unit = SIZE_UNITS[match?.[2]?.toLowerCase() ?? 'x'];
  const value = match && unit !== undefined ? Math.floor(Number(match[1]) * unit) : NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_BYTES) {
    throw new UsageError(
      `--${flag} ${shown(raw)}: expected a size like 5MiB, 512KiB or 1048576 (bytes), at most ${formatBytes(MAX_BYTES)}`,
    );
  }
  return value;
}

/** A size as `bytes` reads it back: 5MiB, 512KiB, or bytes. */
export function formatBytes(value: number): string {
  if (value % 1024 ** 2 === 0) return `${value / 1024 ** 2}MiB`;
  if (value % 1024 === 0) return `${value / 1024}KiB`;
  return String(value);
}
