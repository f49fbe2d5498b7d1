/** Parse durations the CLI and config accept: "300ms", "3s", "1.5s", "2m", or a bare number of ms. */
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

export function parseDurationMs(input: string | number): number | null {
  if (typeof input === 'number') return Number.isFinite(input) && input >= 0 ? input : null;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(input);
  if (!match) return null;
  const value = Number(match[1]) * UNITS[match[2] ?? 'ms']!;
  return Number.isFinite(value) ? value : null;
}

export function formatDurationMs(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms >= 1000) return `${+(ms / 1000).toFixed(3)}s`;
  return `${+ms.toFixed(1)}ms`;
}

/** "312 ms", "3.49 s": a duration as results' sentences give it. */
export function ms(value: number): string {
  return Math.abs(value) < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`;
}
