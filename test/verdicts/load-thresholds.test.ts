/** LOAD-THRESHOLDS, the pure verdict: per org per window admitted ≤ Limit, 429 only at Remaining 0, thresholds hold. */
import { beforeEach, describe, expect, it } from 'vitest';
import { loadThresholdsVerdict } from '../../src/verdicts/load-thresholds.ts';
import type { Figure } from '../../src/contract/types.ts';
import { summarizeObservations } from '../../src/measure/aggregate.ts';
import type { ThresholdOutcome } from '../../src/verdicts/support/threshold-eval.ts';
import type { Observation } from '../../src/measure/observation.ts';
import { loadPhaseName } from '../../src/measure/tags.ts';
import { obs, resetObservations, type ObsInit } from '../helpers/observations.ts';

const STARTER: Figure = { value: 60, atLeast: false };
const PASSING: ThresholdOutcome = {
  threshold: 'http_req_failed rate<0.01',
  verdict: 'pass',
  observed: 0,
  samples: 1,
  detail: 'rate = 0',
};

beforeEach(() => resetObservations());

/** `admitted` 2xx with Remaining counting down from `limit - 1`, then `rejected` 429s at Remaining `rejectedRemaining`. */
function windowOf(
  admitted: number,
  rejected: number,
  init: ObsInit & { limitValue?: number; rejectedRemaining?: number } = {},
): Observation[] {
  const limit = init.limitValue ?? 60;
  const out: Observation[] = [];
  for (let i = 0; i < admitted; i++)
    out.push(
      obs({
        check: 'LOAD-THRESHOLDS',
        phase: loadPhaseName('over-quota'),
        limit,
        remaining: Math.max(0, limit - 1 - i),
        intendedAt: null,
        ...init,
      }),
    );
  for (let i = 0; i < rejected; i++)
    out.push(
      obs({
        check: 'LOAD-THRESHOLDS',
        phase: loadPhaseName('over-quota'),
        status: 429,
        limit,
        remaining: init.rejectedRemaining ?? 0,
        ...init,
      }),
    );
  return out;
}

function judge(
  observations: readonly Observation[],
  thresholds: readonly ThresholdOutcome[] = [PASSING],
  figure: Figure = STARTER,
) {
  return loadThresholdsVerdict({
    summary: summarizeObservations(observations, 60),
    thresholds,
    figures: { starter: figure },
    dropped: 0,
  });
}

/** Where the reasons name the first window judged: its org and when it ends. */
const firstWindow = (f: ReturnType<typeof judge>) => {
  const [w] = f.data!.windows;
  return { org: w!.org, windowEnd: new Date(w!.endS * 1000).toISOString() };
};

describe('loadThresholdsVerdict', () => {
  it('passes a window that admits exactly Limit and rejects the rest at Remaining 0', () => {
    const f = judge(windowOf(60, 40));
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toBeUndefined();
    expect(f.data!.windows).toEqual([
      expect.objectContaining({ admitted: 60, limit: 60, rejected: 40, other: 0, problem: null }),
    ]);
  });

  it('fails a window that admits more than Limit, citing the last admitted', () => {
    const observations = windowOf(61, 5, { remaining: 0 });
    const f = judge(observations);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'window-over-limit', ...firstWindow(f), admitted: 61, limit: 60 }]);
    expect(firstWindow(f).org).toBe('starter-a');
    expect(f.evidence).toContain(observations[60]!.id);
  });

  it('fails a 429 that says Remaining > 0', () => {
    const f = judge(windowOf(60, 3, { rejectedRemaining: 4 }));
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'refused-with-remaining', ...firstWindow(f), refused: 3 }]);
  });

  it('fails a 429 that comes before Remaining reached 0 (quota-early)', () => {
    const f = judge(windowOf(59, 2));
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      { code: 'refused-before-quota-used', ...firstWindow(f), admitted: 59, limit: 60, lowestRemaining: 1 },
    ]);
  });

  it('judges each org on its own: two orgs at Limit in one window pass', () => {
    const f = judge([...windowOf(60, 1, { org: 'starter-a' }), ...windowOf(60, 1, { org: 'starter-b' })]);
    expect(f.verdict).toBe('pass');
    expect((f.data!.windows as unknown[]).length).toBe(2);
  });

  it('holds an Enterprise window to the Limit the server announced (a minimum is published)', () => {
    const minimum: Figure = { value: 50, atLeast: true };
    expect(judge(windowOf(70, 1, { limitValue: 70, tier: 'starter' }), [PASSING], minimum).verdict).toBe('pass');
    expect(judge(windowOf(71, 1, { limitValue: 70, remaining: 0 }), [PASSING], minimum).verdict).toBe('fail');
  });

  it('holds a window to the figure declared in the config, whatever Limit is announced, or none', () => {
    const declared: Figure = { value: 70, atLeast: false, declared: true };
    const announcedLess = judge(windowOf(70, 1, { limitValue: 50, remaining: 0 }), [PASSING], declared);
    expect(announcedLess.verdict).toBe('pass');
    expect(announcedLess.reasons).toEqual([{ code: 'limit-declared-in-config', limit: 70, announced: 50 }]);
    const headerless = (admitted: number) => windowOf(admitted, 1, { limit: null, remaining: null });
    expect(judge(headerless(70), [PASSING], declared).verdict).toBe('pass');
    expect(judge(headerless(71), [PASSING], declared).reasons).toContainEqual(
      expect.objectContaining({ code: 'window-over-limit', admitted: 71, limit: 70 }),
    );
    // Against the published minimum alone, a window without a Limit is not judged.
    const unjudged = judge(headerless(71), [PASSING], { value: 50, atLeast: true });
    expect(unjudged.verdict).toBe('inconclusive');
    expect(unjudged.reasons).toEqual([{ code: 'window-without-limit', windows: 1 }]);
  });

  it('fails when a threshold fails, even with every window right', () => {
    const failing: ThresholdOutcome = {
      threshold: 'http_req_duration p(95)<1',
      verdict: 'fail',
      observed: 4,
      samples: 100,
      detail: 'p(95) = 4 ms over 100 responses',
    };
    const f = judge(windowOf(60, 0), [PASSING, failing]);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      { code: 'threshold-failed', threshold: 'http_req_duration p(95)<1', observed: 4, samples: 100 },
    ]);
  });

  it('is inconclusive, not passed, when a threshold had no data', () => {
    const empty: ThresholdOutcome = {
      threshold: 'http_req_duration{status:429} p(95)<100',
      verdict: 'no-data',
      observed: null,
      samples: 0,
      detail: 'no responses matched',
    };
    const f = judge(windowOf(60, 0), [PASSING, empty]);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'threshold-no-data', thresholds: ['http_req_duration{status:429} p(95)<100'] }]);
  });

  it('is inconclusive when no response can be placed in a window', () => {
    const f = judge(windowOf(5, 0, { reset: null, date: null }));
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([
      { code: 'no-window-placement', responses: 5 },
      { code: 'responses-unplaced', unplaced: 5 },
    ]);
  });

  it('is inconclusive without any response', () => {
    const f = judge([]);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'no-load-responses' }]);
  });
});
