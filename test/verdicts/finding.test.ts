import { describe, expect, it } from 'vitest';
import {
  countOf,
  describe as describeObs,
  finding,
  headerProblem,
  listSome,
  notJson,
  outcomeOf,
  worst,
  atLeastOne,
  judgedFinding,
} from '../../src/verdicts/support/finding.ts';
import { because } from '../../src/catalogue/reasons/index.ts';
import { headerValue } from '../../src/measure/observation.ts';
import { obs } from '../helpers/observations.ts';

describe('finding helpers', () => {
  it('finding keeps numeric evidence once, in order', () => {
    const reasons = [because('never-refused', { sent: 3 })] as const;
    const sentences = { expected: 'e', actual: 'a' };
    const f = finding('fail', { ...sentences, evidence: [3, null, 1, undefined, 3], reasons });
    expect(f).toEqual({ verdict: 'fail', ...sentences, evidence: [3, 1], notes: [], reasons });
  });

  it('a fail or an inconclusive without a reason is refused', () => {
    // @ts-expect-error: a finding that is not a pass cannot be built without a reason
    expect(() => finding('fail', { expected: 'e', actual: 'a' })).toThrow(/without a reason code/);
    expect(() => judgedFinding('inconclusive', { expected: 'e', actual: 'a', reasons: [] })).toThrow(
      /without a reason code/,
    );
    expect(() => atLeastOne([])).toThrow(/needs a reason code/);
    expect(judgedFinding('pass', { expected: 'e', actual: 'a' }).verdict).toBe('pass');
  });

  it('worst: fail beats inconclusive beats pass', () => {
    expect(worst([])).toBe('pass');
    expect(worst(['pass', 'inconclusive'])).toBe('inconclusive');
    expect(worst(['inconclusive', 'fail', 'pass'])).toBe('fail');
  });

  it('headerProblem names why a header is not a non-negative integer', () => {
    expect(headerProblem('Limit', headerValue(undefined))).toBe('Limit absent');
    expect(headerProblem('Limit', headerValue('60'))).toBeNull();
    expect(headerProblem('Limit', headerValue('-1'))).toBe("Limit '-1' is negative");
    expect(headerProblem('Limit', headerValue('1.5'))).toBe("Limit '1.5' has a fraction");
    expect(headerProblem('Limit', headerValue(['60', '60']))).toBe("Limit '60, 60' is repeated or a list");
    expect(headerProblem('Limit', headerValue('  '))).toBe("Limit '  ' is empty");
    expect(headerProblem('Limit', headerValue('NaN'))).toBe("Limit 'NaN' is not an integer");
  });

  it('describes observations and outcomes, with or without a response', () => {
    const ok = obs({ status: 201, method: 'POST', path: '/recruiter/webhooks' });
    const lost = obs({ status: null, error: 'TIMEOUT' });
    expect(describeObs(ok)).toBe(`201 POST /recruiter/webhooks (#${ok.id})`);
    expect(describeObs(lost)).toBe(`TIMEOUT on GET /recruiter/jobs (#${lost.id})`);
    expect(outcomeOf(lost)).toBe('TIMEOUT');
    expect(outcomeOf(obs({ status: null, error: null }))).toBe('no response');
  });

  it('lists and counts readably', () => {
    expect(listSome(['a', 'b', 'c', 'd', 'e'])).toBe('a; b; c and 2 more');
    expect(countOf(1, 'request')).toBe('one request');
    expect(countOf(0, 'request')).toBe('0 requests');
    expect(notJson(obs({ bodyText: 'x'.repeat(200), contentType: 'text/plain' }))).toMatch(
      /^body is not JSON \(Content-Type text\/plain\): 'x{79}…'$/,
    );
  });
});
