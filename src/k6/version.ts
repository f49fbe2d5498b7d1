/**
 * Which k6 tiergate drives, and what it hands it. k6 v2.0.0 removed `--no-summary` (its replacement,
 * `--summary-mode=disabled`, exists from k6 1.3.0 on) and `--summary-mode=legacy`; tiergate passes
 * only flags that every k6 from 1.3.0 to 2.2.0 defines (test/k6/fixtures/k6-run-flags.json holds
 * each version's flags, read from k6's own flag definitions at its tag). Pure.
 */

/** The oldest k6 tiergate runs: the first with `--summary-mode=disabled`. */
export const OLDEST_K6 = '1.3.0';

/** The k6 release the tests hold tiergate's flags against last; the runner image TestRuns name. */
export const NEWEST_TESTED_K6 = '2.2.0';

/** The runner image of a k6-operator TestRun: an exact release, so what runs is what was checked. */
export const K6_RUNNER_IMAGE = `grafana/k6:${NEWEST_TESTED_K6}`;

/** No end-of-test summary: tiergate judges the samples itself (`--no-summary` before k6 1.3.0; gone in v2). */
export const NO_SUMMARY_FLAG = '--summary-mode=disabled';

export interface K6Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** As k6 printed it, without the leading v: "2.2.0", "1.3.0-rc1". */
  readonly text: string;
}

/**
 * The version in what `k6 version` prints: `k6 v2.2.0 (commit/0123456789, go1.26.1, linux/amd64)`, or
 * without the commit; extension lines may follow. Null where no such version is there.
 */
export function parseK6Version(output: string): K6Version | null {
  const match = /^\s*k6\s+v?(\d+)\.(\d+)\.(\d+)([-+][0-9A-Za-z.-]+)?(?=\s|$)/m.exec(output);
  if (!match) return null;
  const [major, minor, patch] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  return { major, minor, patch, text: `${major}.${minor}.${patch}${match[4] ?? ''}` };
}

/** Whether tiergate can drive this k6 (OLDEST_K6 or later; a pre-release of it is not yet it). */
export function k6Supported(version: K6Version): boolean {
  const oldest = parseK6Version(`k6 v${OLDEST_K6}`)!;
  const order =
    [version.major - oldest.major, version.minor - oldest.minor, version.patch - oldest.patch].find((d) => d !== 0) ??
    0;
  return order > 0 || (order === 0 && !version.text.includes('-'));
}
