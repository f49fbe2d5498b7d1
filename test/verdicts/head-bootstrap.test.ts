import { describe, expect, it } from 'vitest';
import { headBootstrapVerdict } from '../../src/verdicts/head-bootstrap.ts';
import { whyLines } from '../../src/catalogue/reasons/index.ts';
import { T0, httpDate, obs, type ObsInit } from '../helpers/observations.ts';

const head = (init: ObsInit = {}) =>
  obs({ check: 'HEAD-BOOTSTRAP', phase: 'access', method: 'HEAD', remaining: 60, ...init });

describe('HEAD-BOOTSTRAP', () => {
  it('passes: 200, the three headers, no body, Remaining unchanged by a second HEAD', () => {
    const a = head();
    const b = head();
    const f = headBootstrapVerdict(a, b, 60);
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toBeUndefined();
    expect(f.data).toEqual({
      status: 200,
      remainingBefore: 60,
      remainingAfter: 60,
      placedBy: 'reset',
      declaredFree: null,
    });
    expect(f.evidence).toEqual([a.id, b.id]);
  });

  it('fails a HEAD answered with a body', () => {
    const b = head({ bodyText: 'hello', bodyBytes: 5 });
    const f = headBootstrapVerdict(head(), b, 60);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'head-has-body', request: b.id, bytes: 5 }]);
  });

  it('passes a HEAD that counts one read (the spec names no counting rule), saying the assumption broke', () => {
    const f = headBootstrapVerdict(head({ remaining: 60 }), head({ remaining: 59 }), 60);
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toEqual([{ code: 'head-counts-as-read', before: 60, after: 59 }]);
    expect(f.data).toMatchObject({ status: 200, remainingBefore: 60, remainingAfter: 59, placedBy: 'reset' });
  });

  it('holds a deployment to what it declares: HEAD required free fails when it counts; declared counting passes quietly', () => {
    const free = headBootstrapVerdict(head({ remaining: 60 }), head({ remaining: 59 }), 60, { declaredFree: true });
    expect(free.verdict).toBe('fail');
    expect(free.reasons).toEqual([{ code: 'head-counted-though-declared-free', before: 60, after: 59 }]);
    const counting = headBootstrapVerdict(head({ remaining: 60 }), head({ remaining: 59 }), 60, {
      declaredFree: false,
    });
    expect(counting.verdict).toBe('pass');
    expect(counting.data).toEqual({
      status: 200,
      remainingBefore: 60,
      remainingAfter: 59,
      placedBy: 'reset',
      declaredFree: false,
    });
    // Quietly: nothing said beside the verdict, neither a reason nor a note.
    expect(whyLines(counting)).toEqual([]);
  });

  it('fails a HEAD that costs more than one read, however it is declared', () => {
    for (const declaredFree of [null, false, true]) {
      const f = headBootstrapVerdict(head({ remaining: 60 }), head({ remaining: 57 }), 60, { declaredFree });
      expect(f.verdict).toBe('fail');
      expect(f.reasons).toEqual([{ code: 'head-costs-several-reads', before: 60, after: 57 }]);
    }
  });

  it('fails a missing or garbage header, and a non-2xx status', () => {
    const [sixty, missing] = [head({ limit: 'sixty' }), head({ reset: null })];
    const f = headBootstrapVerdict(sixty, missing, 60);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      { code: 'header-not-integer', header: 'X-RateLimit-Limit', raw: 'sixty', request: sixty.id },
      { code: 'header-absent', header: 'X-RateLimit-Reset', request: missing.id },
    ]);
    const unauthorized = head({ status: 401 });
    expect(headBootstrapVerdict(unauthorized, head(), 60).reasons).toEqual([
      { code: 'head-not-success', request: unauthorized.id, status: 401 },
    ]);
  });

  it('with a delta Reset and one stale Date, judges by Remaining: unchanged below Limit − 1 passes, a fall fails', () => {
    const placeless = { reset: 2, date: null, limit: 60 } as const;
    const pass = headBootstrapVerdict(head({ ...placeless, remaining: 54 }), head({ ...placeless, remaining: 54 }), 60);
    expect(pass.verdict).toBe('pass');
    expect(pass.reasons).toEqual([{ code: 'head-placed-by-remaining', before: 54, after: 54, limit: 60 }]);
    const fell = headBootstrapVerdict(
      head({ ...placeless, remaining: 54 }),
      head({ ...placeless, remaining: 53 }),
      60,
      { declaredFree: true },
    );
    expect(fell.verdict).toBe('fail');
    expect(fell.data).toMatchObject({ placedBy: 'remaining', declaredFree: true });
    expect(fell.reasons).toEqual([{ code: 'head-counted-though-declared-free', before: 54, after: 53 }]);
    expect(
      headBootstrapVerdict(head({ ...placeless, remaining: 59 }), head({ ...placeless, remaining: 59 }), 60).verdict,
    ).toBe('inconclusive');
  });

  it('is inconclusive when the window rolled over between the two HEADs', () => {
    const a = head({ serverMs: (T0 + 59) * 1000 + 900, reset: T0 + 60, remaining: 3 });
    const b = head({ serverMs: (T0 + 60) * 1000 + 10, reset: T0 + 120, remaining: 60 });
    const f = headBootstrapVerdict(a, b, 60);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([
      {
        code: 'head-windows-unplaceable',
        before: 3,
        after: 60,
        resetBefore: String(T0 + 60),
        resetAfter: String(T0 + 120),
        dateBefore: a.date,
        dateAfter: b.date,
      },
    ]);
  });

  it('places the HEADs by a Reset in milliseconds (HDR-RESET judges the unit), and still judges', () => {
    const ms = (T0 + 60) * 1000;
    // In the last second of a window, where Date alone could not rule a rollover out.
    const f = headBootstrapVerdict(
      head({ reset: ms, date: httpDate(T0 + 59) }),
      head({ reset: ms, date: httpDate(T0 + 59) }),
      60,
    );
    expect(f.verdict).toBe('pass');
    const fell = headBootstrapVerdict(head({ reset: ms, remaining: 40 }), head({ reset: ms, remaining: 39 }), 60, {
      declaredFree: true,
    });
    expect(fell.verdict).toBe('fail');
    const rolled = headBootstrapVerdict(
      head({ reset: ms, date: httpDate(T0 + 59) }),
      head({ reset: ms + 60_000, date: httpDate(T0 + 60) }),
      60,
    );
    expect(rolled.verdict).toBe('inconclusive');
  });

  it('places the HEADs by Date when Reset is a delta', () => {
    const f = headBootstrapVerdict(
      head({ reset: 50, date: httpDate(T0 + 10) }),
      head({ reset: 49, date: httpDate(T0 + 11) }),
      60,
    );
    expect(f.verdict).toBe('pass');
    // A second before a boundary (and a stale Date), Date cannot rule a rollover out.
    const edge = headBootstrapVerdict(
      head({ reset: 1, date: httpDate(T0 + 59) }),
      head({ reset: 1, date: httpDate(T0 + 59) }),
      60,
    );
    expect(edge.verdict).toBe('inconclusive');
    expect(headBootstrapVerdict(head({ reset: 7, date: null }), head({ reset: 7, date: null }), 60).verdict).toBe(
      'inconclusive',
    );
  });

  it('is inconclusive when a HEAD got no response', () => {
    const lost = head({ status: null, error: 'TIMEOUT' });
    const f = headBootstrapVerdict(head(), lost, 60);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'head-unanswered', request: lost.id, outcome: 'TIMEOUT' }]);
  });

  it('is inconclusive when a HEAD was refused for quota (a HEAD that counts is refused like any read)', () => {
    const refused = head({ status: 429, remaining: 0 });
    const f = headBootstrapVerdict(head({ remaining: 1 }), refused, 60);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'head-refused-for-quota', request: refused.id }]);
  });
});
