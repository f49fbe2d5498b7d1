/**
 * The faults of the other header dialects, over HTTP: each bends one field of the dialect and
 * nothing else. A faulty target and a clean one, on one ManualClock at one instant of a fresh
 * window, answer the same requests; their rate-limit fields are compared field by field.
 */
import { describe, expect, it } from 'vitest';
import { RATE_LIMIT_DIALECTS, type RateLimitDialectName } from '../../src/contract/rate-limit-dialects.ts';
import { faultDefinition, RESET_EARLY_BY_S, type FaultName } from '../../src/reference-server/faults.ts';
import { resolveTargetOptions } from '../../src/reference-server/options.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { call, orgWithKey, sequential, startTestTarget, type Answer, type TestTarget } from '../helpers/target.ts';

const JOBS = '/recruiter/jobs';
const W = 4000;
const clock = new ManualClock();

/** A starter org's reads: the first admitted and the 429 after its 60, at 1 s into a fresh window. */
async function readsOf(t: TestTarget): Promise<{ first: Answer; refused: Answer }> {
  const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
  const answers = await sequential(61, () => call(t.edge(), JOBS, { key }));
  return { first: answers[0]!, refused: answers[60]! };
}

/** The dialect's fields of an answer. */
function fieldsOf(dialect: RateLimitDialectName, a: Answer): Record<string, string | undefined> {
  return Object.fromEntries(RATE_LIMIT_DIALECTS[dialect].fields.map((f) => [f, a.headers[f]]));
}

/** The same reads against a clean target and a faulty one, at the same instant. */
async function compared(dialect: RateLimitDialectName, fault: FaultName) {
  const clean = await startTestTarget({ windowMs: W, headers: dialect, clock });
  const faulty = await startTestTarget({ windowMs: W, headers: dialect, faults: [fault], clock });
  clock.toNextWindow(W, 1000);
  const [expected, bent] = [await readsOf(clean), await readsOf(faulty)];
  expect([bent.first.status, bent.refused.status]).toEqual([200, 429]);
  return {
    first: { clean: fieldsOf(dialect, expected.first), faulty: fieldsOf(dialect, bent.first) },
    refused: { clean: fieldsOf(dialect, expected.refused), faulty: fieldsOf(dialect, bent.refused) },
  };
}

/** The fields that differ, by name. */
function changed(pair: { clean: Record<string, string | undefined>; faulty: Record<string, string | undefined> }) {
  return Object.keys(pair.clean).filter((f) => pair.clean[f] !== pair.faulty[f]);
}

describe('dialect faults', () => {
  it("policy-quota-wrong announces the read policy's q one too high, and nothing else", async () => {
    const draft7 = await compared('ietf-draft-7', 'policy-quota-wrong');
    expect(changed(draft7.first)).toEqual(['ratelimit-policy']);
    expect(draft7.first.faulty['ratelimit-policy']).toBe('61;w=4');
    const draft6 = await compared('ietf-draft-6', 'policy-quota-wrong');
    expect(changed(draft6.first)).toEqual(['ratelimit-policy']);
    expect([draft6.first.faulty['ratelimit-policy'], draft6.first.faulty['ratelimit-limit']]).toEqual(['61;w=4', '60']);
  });

  it('remaining-never-zero shows r=1 on the 429, and leaves the first read alone', async () => {
    const ietf = await compared('ietf', 'remaining-never-zero');
    expect(changed(ietf.first)).toEqual([]);
    expect(changed(ietf.refused)).toEqual(['ratelimit']);
    expect(ietf.refused.faulty['ratelimit']).toBe('"read";r=1;t=3');
    const draft7 = await compared('ietf-draft-7', 'remaining-never-zero');
    expect(draft7.refused.faulty['ratelimit']).toBe('limit=60, remaining=1, reset=3');
  });

  it(`reset-early names a t ${RESET_EARLY_BY_S} s early, and nothing else`, async () => {
    const ietf = await compared('ietf', 'reset-early');
    expect(changed(ietf.first)).toEqual(['ratelimit']);
    expect([ietf.first.clean['ratelimit'], ietf.first.faulty['ratelimit']]).toEqual([
      '"read";r=59;t=3',
      '"read";r=59;t=1',
    ]);
    const draft6 = await compared('ietf-draft-6', 'reset-early');
    expect(changed(draft6.refused)).toEqual(['ratelimit-reset']);
  });

  it('policy-missing drops RateLimit-Policy, and nothing else', async () => {
    for (const dialect of ['ietf-draft-7', 'ietf-draft-6'] as const) {
      const { first, refused } = await compared(dialect, 'policy-missing');
      expect([changed(first), changed(refused)]).toEqual([['ratelimit-policy'], ['ratelimit-policy']]);
      expect(first.faulty['ratelimit-policy']).toBeUndefined();
    }
  });

  it('each is named for the dialects it bends, and refused with x-ratelimit', () => {
    for (const fault of ['remaining-never-zero', 'reset-early'] as const) {
      expect(faultDefinition(fault).dialects).toEqual(['ietf', 'ietf-draft-7', 'ietf-draft-6']);
      expect(() => resolveTargetOptions({ faults: [fault] })).toThrow(
        `invalid target options: faults: "${fault}" bends the headers of ietf, ietf-draft-7, ietf-draft-6, not x-ratelimit`,
      );
    }
    // Under the IETF fields the policy's q is the only Limit: dropping it would break HDR-LIMIT as
    // well, and limit-header-wrong bends it (with r), as it bends X-RateLimit-Limit.
    for (const fault of ['policy-missing', 'policy-quota-wrong'] as const)
      expect(faultDefinition(fault).dialects).toEqual(['ietf-draft-7', 'ietf-draft-6']);
    expect(() => resolveTargetOptions({ faults: ['policy-missing'], headers: 'ietf' })).toThrow(
      'faults: "policy-missing" bends the headers of ietf-draft-7, ietf-draft-6, not ietf',
    );
    expect(() => resolveTargetOptions({ faults: ['reset-relative'], headers: 'ietf' })).toThrow(
      'faults: "reset-relative" bends the headers of x-ratelimit, not ietf',
    );
  });
});
