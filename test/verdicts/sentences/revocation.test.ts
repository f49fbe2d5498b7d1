/**
 * How the revocation verdicts word what their figures say: the confidence statement, the target in
 * the expectation, and why fewer trials ran at once. The figures themselves are asserted in
 * test/verdicts/revocation.test.ts and test/revocation/probe.test.ts; these pin the words alone.
 */
import { describe, expect, test } from 'vitest';
import { confidenceText, revokeLatencyVerdict } from '../../../src/verdicts/revoke-latency.ts';
import { trialsAtOnceNotes } from '../../../src/verdicts/support/revocation-method.ts';
import { cleanRun, evidence } from '../../helpers/revocation-fixtures.ts';

const trials = (n: number) => Array.from({ length: n }, (_, i) => cleanRun(i + 1));

describe('REVOKE-LATENCY: the confidence statement', () => {
  test('20 of 20 within: the statement an auditor checks, in the notes', () => {
    const v = revokeLatencyVerdict(evidence(trials(20)));
    const statement = confidenceText(v.data!.confidence!, v.data!.slaMs);
    expect(v.notes).toContain(statement);
    expect(statement).toBe(
      '20 of 20 trials took effect on every edge within 3.00 s (a bound straddling it counts as not within): at 95 % confidence (one-sided, Clopper–Pearson), at least 86.1 % of revocations do; the slowest trial is a 95 % upper bound for about the 86th percentile (bounding p95 takes 59 trials, p99 299, none slower). Trials are taken as independent; run several at once, they share the edges and the revocation system, so a common slowdown hits them together',
    );
  });

  test('a target the trials prove: in the expectation, and reached in the statement', () => {
    const v = revokeLatencyVerdict({ ...evidence(trials(59)), target: { share: 0.95, level: 0.95 } });
    expect(v.expected).toContain('; and 95 % of revocations within 3.00 s, at 95 % confidence');
    expect(confidenceText(v.data!.confidence!, v.data!.slaMs)).toMatch(
      /\. Target 95 % of revocations within 3\.00 s, at 95 % confidence: reached \(the bound is 95\.05 %\)$/,
    );
  });
});

test('fewer trials at once than asked: every limit that held them, in one note', () => {
  expect(
    trialsAtOnceNotes({
      chains: 2,
      asked: 4,
      limits: [
        { by: 'concurrency-cap', allows: 3, concurrencyCap: 9, edges: 3 },
        { by: 'key-capacity', allows: 2, keys: 22, trials: 20 },
      ],
    }),
  ).toEqual([
    "2 trials at once, not 4: the organization's concurrency cap of 9 must hold every trial's 3 probes in flight; the hook has 22 keys, and 20 trials on K rotation chains need 20 + K",
  ]);
});
