/** Turns a pure Finding into a CheckResult: the catalogue's requirement, spec and basis attached. */
import type { TierName } from '../contract/types.ts';
import { checkDefinition } from './catalogue.ts';
import type { CheckId, CheckResult, CheckVariant, Finding, FindingData } from '../catalogue/types.ts';

export interface ResultContext {
  readonly tier: TierName | null;
  readonly org: string | null;
  readonly variant?: CheckVariant;
  /** Wall clock ms when the check's traffic started. */
  readonly startedWall: number;
  readonly durationMs: number;
}

export function checkResult<Data extends FindingData>(
  id: CheckId,
  finding: Finding<Data>,
  context: ResultContext,
): CheckResult<Data> {
  const definition = checkDefinition(id);
  // Whether to measure again is the run's business, not the result's.
  const { measureAgain: _measureAgain, ...judged } = finding;
  return {
    ...judged,
    reasons: finding.reasons ?? [],
    id,
    variant: context.variant ?? '',
    tier: context.tier,
    org: context.org,
    title: definition.title,
    spec: definition.spec,
    requirement: definition.requirement,
    basis: definition.assumptions.length > 0 ? 'assumption' : 'spec',
    assumptions: definition.assumptions,
    startedAt: new Date(context.startedWall).toISOString(),
    durationMs: Math.round(context.durationMs),
  };
}

/** A check that could not run here, and why. */
export function skipped(id: CheckId, reason: string, context: Omit<ResultContext, 'durationMs'>): CheckResult {
  return checkResult(
    id,
    { verdict: 'skipped', expected: '—', actual: 'not run', evidence: [], notes: [reason] },
    { ...context, durationMs: 0 },
  );
}
