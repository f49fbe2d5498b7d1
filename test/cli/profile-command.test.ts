/**
 * `tiergate profile` end to end through the CLI's library entry: the embedded reference target
 * (2 s windows, starter only) is started, learned and closed by the command itself. Four runs at once, of a
 * few seconds each: the text block and the JSON for a target whose windows start at the first
 * counted request, the JSON of the default target, of one where HEAD counts, and of one speaking the
 * IETF rate-limit fields, undeclared and declared.
 */
import { describe, expect, it } from 'vitest';
import type { LimiterProfile } from '../../src/profile/types.ts';
import { runCli } from '../helpers/cli.ts';

const PROFILE = ['profile', '--window', '2s', '--tiers', 'starter'];

/** The profiles printed with --json; exactly one, for starter. */
function onlyProfile(stdout: string): LimiterProfile {
  const profiles = JSON.parse(stdout) as LimiterProfile[];
  expect(profiles.map((p) => p.tier)).toEqual(['starter']);
  return profiles[0]!;
}

// Each run starts a target of its own: they run at once.
describe.concurrent('tiergate profile', () => {
  it('prints how the server limits: read windows that start at the first counted request', async () => {
    const { code, stdout, stderr } = await runCli([...PROFILE, '--target-variant', 'first-request-windows']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/^How this server limits \(starter, learned on starter-a in .+, \d+ requests\)\n/);
    expect(stdout).toMatch(/^ {2}read {16}Limit 60 .*windows fixed, start at the first counted request$/m);
    expect(stdout).toMatch(/^ {2}rate-limit headers {2}present$/m);
    expect(stdout).toMatch(/^ {2}header dialects {5}x-ratelimit$/m);
    expect(stdout).not.toMatch(/xh_(test|live)_[A-Za-z0-9]{32}/);
  }, 60_000);

  it('--json: the read windows are fixed-first-request', async () => {
    const { code, stdout } = await runCli([...PROFILE, '--target-variant', 'first-request-windows', '--json']);
    expect(code).toBe(0);
    expect(onlyProfile(stdout).read.algorithm.value).toBe('fixed-first-request');
  }, 60_000);

  it('--json, the default target: windows aligned to the clock, HEAD not counted', async () => {
    const { code, stdout } = await runCli([...PROFILE, '--json']);
    expect(code).toBe(0);
    const profile = onlyProfile(stdout);
    expect({ algorithm: profile.read.algorithm.value, head: profile.counts.head.value }).toEqual({
      algorithm: 'fixed-aligned',
      head: false,
    });
  }, 60_000);

  it("--headers ietf: the IETF fields and the policies they announce, §8's triple absent", async () => {
    const { code, stdout, stderr } = await runCli([...PROFILE, '--headers', 'ietf', '--json']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const { dialects, headers } = onlyProfile(stdout);
    expect({ sent: dialects?.sent.value, fields: dialects?.fields, headers: headers.value }).toEqual({
      sent: ['ietf'],
      fields: ['ratelimit-policy', 'ratelimit'],
      headers: false,
    });
    expect(dialects?.policies.map((p) => [p.quota, p.windowS])).toContainEqual([60, 2]);
  }, 60_000);

  it('--headers ietf --declare-headers ietf: read in the dialect, the policy reads draw on learned', async () => {
    const { code, stdout, stderr } = await runCli([
      ...PROFILE,
      '--headers',
      'ietf',
      '--declare-headers',
      'ietf',
      '--json',
    ]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const { dialects, headers } = onlyProfile(stdout);
    expect(headers.value).toBe(true);
    expect(dialects?.classes?.read.value).toBe('read');
  }, 60_000);

  it('--json, --target-variant head-counts: HEAD counted', async () => {
    const { code, stdout } = await runCli([...PROFILE, '--target-variant', 'head-counts', '--json']);
    expect(code).toBe(0);
    expect(onlyProfile(stdout).counts.head.value).toBe(true);
  }, 60_000);
});
