/** Assertions on revocation results that more than one test makes, on their reasons' figures. */
import { expect } from 'vitest';
import type { CheckResult } from '../../src/catalogue/types.ts';
import type { ReasonFigures } from '../../src/catalogue/reasons/index.ts';

type Late = { readonly code: 'still-admitted-past-sla' } & ReasonFigures<'still-admitted-past-sla'>;

/**
 * REVOKE-LATENCY failed on `edge` alone, against the 3 s SLA: every late admission it names is on
 * that edge, past the SLA, and the slowest (its first reason) within a second of it.
 */
export function expectLateOnly(latency: CheckResult, edge: string): void {
  expect(latency.verdict).toBe('fail');
  const late = latency.reasons.filter((r): r is Late => r.code === 'still-admitted-past-sla');
  expect(late.length).toBeGreaterThan(0);
  expect(latency.reasons[0]).toBe(late[0]);
  expect(new Set(late.map((r) => [r.edge, r.slaMs].join(' ')))).toEqual(new Set([`${edge} 3000`]));
  for (const r of late) expect(r.admittedMs).toBeGreaterThanOrEqual(3000);
  expect(late[0]!.admittedMs).toBeLessThan(4000);
}
