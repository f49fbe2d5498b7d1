/** What tests read of results that are not a plain pass: their reason codes, never their sentences. */
import { isReasonCode } from '../../src/catalogue/reasons/index.ts';
import type { CheckResult } from '../../src/catalogue/types.ts';

export const unexplained = (checks: readonly CheckResult[]): string[] =>
  checks
    .filter((c) => c.verdict !== 'pass' && (c.reasons.length === 0 || !c.reasons.every((r) => isReasonCode(r.code))))
    .map((c) => `${c.id} [${c.tier ?? 'all'}] ${c.verdict}: ${c.actual}`);

/** Results other than a pass, each as "ID[tier] verdict: code, code", for a list asserted empty. */
export const notPassed = (checks: readonly CheckResult[]): string[] =>
  checks
    .filter((c) => c.verdict !== 'pass')
    .map((c) => `${c.id}[${c.tier ?? 'all'}] ${c.verdict}: ${c.reasons.map((r) => r.code).join(', ')}`);

/** Whether a figure of one of a result's reasons matches `pattern` (an error code, a status). */
export const reasonFiguresMatch = (check: CheckResult, pattern: RegExp): boolean =>
  check.reasons.some((r) => Object.values(r).some((figure) => pattern.test(String(figure))));
