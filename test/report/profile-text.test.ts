import { describe, expect, it } from 'vitest';
import type { LimiterProfile } from '../../src/profile/types.ts';
import { formatProfile, profileFindings } from '../../src/report/profile-text.ts';
import { ansi } from '../../src/report/palette.ts';
import { SAMPLE_PROFILE } from '../helpers/sample-results.ts';
import { CONCURRENCY_NOT_LEARNED } from '../../src/profile/concurrency.ts';

const stripAnsi = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, '');
const open = (how: string) => ({ value: null, how, evidence: [] });

/** Everything different from the sample: no headers, refilling, per-route counters, shared classes, much left open. */
const ODD: LimiterProfile = {
  ...SAMPLE_PROFILE,
  tier: 'enterprise',
  org: 'big-co',
  headers: { value: false, how: 'no response carried X-RateLimit-Limit, -Remaining or -Reset', evidence: [1, 2] },
  read: {
    quotaClass: 'read',
    limit: null,
    resetFormat: { value: 'absent', how: 'no Reset header', evidence: [1] },
    resetSteady: open('no Reset to compare'),
    phase: open('no used-up window announced its end'),
    algorithm: { value: 'refilling', how: 'a request was admitted again 1 s after the first 429', evidence: [5, 6] },
  },
  ingest: {
    quotaClass: 'ingest',
    limit: null,
    resetFormat: open('no upload was answered'),
    resetSteady: open('no upload was answered'),
    phase: open('no upload was answered'),
    algorithm: { value: 'unknown', how: 'no upload was answered', evidence: [] },
  },
  counts: { ...SAMPLE_PROFILE.counts, head: open('without Remaining, a HEAD cannot be seen to count') },
  readSharedAcrossRoutes: {
    value: false,
    how: 'the second route admitted a full Limit after the first was used up',
    evidence: [7],
  },
  classesIndependent: { value: false, how: 'uploads drew the read quota down', evidence: [8] },
  concurrency: {
    value: { kind: 'queues' },
    how: 'one request beyond the cap of 100 waited until a held request finished',
    evidence: [9, 10],
  },
  observations: 1,
  durationMs: 12_500,
};

describe('formatProfile', () => {
  it('writes the sample profile as a compact block, the undecided item as unknown', () => {
    expect(formatProfile(SAMPLE_PROFILE).split('\n')).toEqual([
      'How this server limits (starter, learned on starter-a in 4.2 s, 23 requests)',
      '  rate-limit headers  present',
      '  read                Limit 60   Reset epoch-seconds   windows fixed, start at the first counted request',
      '  ingest              Limit 10   Reset epoch-seconds   windows fixed, aligned to the clock',
      '  counts              HEAD yes · 404 no · 403 no · 401 no · 429 unknown',
      '  read endpoints      one shared counter',
      '  read vs ingest      independent counters and windows',
      '  beyond the cap      refused with 429',
    ]);
  });

  it('adds the reason each unknown stayed open, on demand', () => {
    const lines = formatProfile(SAMPLE_PROFILE, { reasons: true }).split('\n');
    expect(lines.slice(-3)).toEqual([
      '  unknown, and why',
      '    ingest Reset within a window  one upload cannot show it; taken as for reads',
      '    429 counted                   the discovery stopped before the read quota ran out: no 429 was seen to count or not',
    ]);
    // Nothing to explain: no reasons block.
    const decided: LimiterProfile = {
      ...SAMPLE_PROFILE,
      ingest: {
        ...SAMPLE_PROFILE.ingest,
        resetSteady: { value: true, how: 'Reset held still over 3 uploads', evidence: [10, 11, 12] },
      },
      counts: {
        ...SAMPLE_PROFILE.counts,
        rejected: { value: true, how: 'Remaining kept falling past 0', evidence: [9] },
      },
    };
    expect(formatProfile(decided, { reasons: true })).not.toContain('unknown');
  });

  it('says so on the class line when Reset moves within a window, keeping the columns', () => {
    const moving: LimiterProfile = {
      ...SAMPLE_PROFILE,
      read: {
        ...SAMPLE_PROFILE.read,
        resetSteady: {
          value: false,
          how: 'Reset rose from 1772445661 to 1772445662 while Remaining counted down',
          evidence: [453, 460],
        },
      },
    };
    expect(formatProfile(moving).split('\n').slice(2, 4)).toEqual([
      '  read                Limit 60   Reset epoch-seconds (moves within a window)   windows fixed, start at the first counted request',
      '  ingest              Limit 10   Reset epoch-seconds                           windows fixed, aligned to the clock',
    ]);
    expect(profileFindings(moving).find((f) => f.key === 'read.resetSteady')).toMatchObject({
      value: 'moves',
      decided: true,
      evidence: [453, 460],
    });
  });

  it('words every other answer, and treats an `unknown` algorithm as undecided', () => {
    const text = formatProfile(ODD, { reasons: true });
    expect(text.split('\n')).toEqual([
      'How this server limits (enterprise, learned on big-co in 12.5 s, 1 request)',
      '  rate-limit headers  absent',
      '  read                Limit none   Reset absent    windows refilling: quota comes back during the window',
      '  ingest              Limit none   Reset unknown   windows unknown',
      '  counts              HEAD unknown · 404 no · 403 no · 401 no · 429 unknown',
      '  read endpoints      a counter per route',
      '  read vs ingest      not independent: they share a counter or a window',
      '  beyond the cap      queued until a request in flight finished',
      '  unknown, and why',
      '    read Reset within a window    no Reset to compare',
      '    ingest Reset                  no upload was answered',
      '    ingest Reset within a window  no upload was answered',
      '    ingest windows                no upload was answered',
      '    HEAD counted                  without Remaining, a HEAD cannot be seen to count',
      '    429 counted                   the discovery stopped before the read quota ran out: no 429 was seen to count or not',
    ]);
  });

  it('shows the dialects sent, the policies announced, and whether two dialects agree', () => {
    const both: LimiterProfile = {
      ...SAMPLE_PROFILE,
      dialects: {
        sent: { value: ['x-ratelimit', 'ietf-draft-6'], how: '23 of 23 answers carried them', evidence: [453, 453] },
        fields: ['x-ratelimit-limit', 'ratelimit-policy'],
        policies: [
          { name: null, quota: 60, windowS: 60, unit: 'requests' },
          { name: 'cap', quota: 5, windowS: null, unit: 'concurrent-requests' },
        ],
        agreement: { value: 'differs', how: '1 of 23 told another remaining', evidence: [460] },
      },
    };
    expect(formatProfile(both).split('\n').slice(1, 5)).toEqual([
      '  rate-limit headers  present',
      '  header dialects     x-ratelimit, ietf-draft-6',
      '  policies            60 per 60 s · "cap" 5 concurrent-requests',
      '  dialects agree      no: they tell another state',
    ]);
    expect(profileFindings(both).filter((f) => f.key.startsWith('dialects.'))).toMatchObject([
      { key: 'dialects.sent', decided: true, evidence: [453, 453] },
      { key: 'dialects.policies', decided: true, evidence: [] },
      { key: 'dialects.agreement', decided: true, evidence: [460] },
    ]);
    // One dialect, no policy: only the dialect row.
    const alone: LimiterProfile = {
      ...SAMPLE_PROFILE,
      dialects: {
        sent: { value: ['x-ratelimit'], how: '23 of 23 answers carried them', evidence: [453] },
        fields: ['x-ratelimit-limit'],
        policies: [],
        agreement: { value: 'not-both', how: 'no answer carried both', evidence: [] },
      },
    };
    expect(formatProfile(alone).split('\n').slice(1, 4)).toEqual([
      '  rate-limit headers  present',
      '  header dialects     x-ratelimit',
      '  read                Limit 60   Reset epoch-seconds   windows fixed, start at the first counted request',
    ]);
  });

  it('paints the title and each unknown, keeping the columns of the plain text', () => {
    const painted = formatProfile(ODD, { reasons: true, paint: ansi });
    expect(painted).toContain('\u001b[1mHow this server limits');
    expect(painted).toContain('\u001b[33munknown\u001b[0m');
    expect(stripAnsi(painted)).toBe(formatProfile(ODD, { reasons: true }));
  });
});

describe('profileFindings', () => {
  it('lists every answer once, with its evidence, in the order the block shows them', () => {
    const findings = profileFindings(SAMPLE_PROFILE);
    expect(findings.map((f) => f.label)).toEqual([
      'rate-limit headers',
      'read Limit',
      'read Reset',
      'read Reset within a window',
      'read windows',
      'ingest Limit',
      'ingest Reset',
      'ingest Reset within a window',
      'ingest windows',
      'HEAD counted',
      '404 counted',
      '403 counted',
      '401 counted',
      '429 counted',
      'read endpoints',
      'read vs ingest',
      'beyond the cap',
    ]);
    expect(new Set(findings.map((f) => f.key)).size).toBe(findings.length);
    expect(findings.filter((f) => !f.decided).map((f) => f.key)).toEqual(['ingest.resetSteady', 'counts.rejected']);
    expect(findings.find((f) => f.key === 'read.resetSteady')).toMatchObject({
      value: 'holds still',
      evidence: [453, 464],
    });
    expect(findings.find((f) => f.key === 'ingest.resetSteady')).toMatchObject({
      value: 'unknown',
      how: 'one upload cannot show it; taken as for reads',
    });
    expect(findings.find((f) => f.key === 'counts.head')).toMatchObject({ value: 'yes', evidence: [453, 454] });
    expect(findings.find((f) => f.key === 'read.algorithm')?.value).toBe('fixed, start at the first counted request');
  });

  it("words the concurrency cap's answer, learned by CONCURRENCY-CAP and open until it ran", () => {
    const answer = (concurrency: LimiterProfile['concurrency']) =>
      profileFindings({ ...SAMPLE_PROFILE, concurrency }).find((f) => f.key === 'concurrency');
    expect(answer({ value: { kind: 'refuses', status: 503 }, how: 'got 503', evidence: [1] })).toMatchObject({
      value: 'refused with 503',
      decided: true,
    });
    expect(answer({ value: { kind: 'queues' }, how: 'waited', evidence: [1] })).toMatchObject({
      value: 'queued until a request in flight finished',
    });
    expect(answer({ value: { kind: 'no-cap' }, how: 'admitted', evidence: [1] })).toMatchObject({
      value: 'admitted: no cap',
    });
    expect(answer(CONCURRENCY_NOT_LEARNED)).toMatchObject({
      value: 'unknown',
      decided: false,
      how: 'learned by the CONCURRENCY-CAP check of tiergate run, which holds the cap in flight; the discovery does not',
    });
  });
});
