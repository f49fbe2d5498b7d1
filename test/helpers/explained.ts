/** Results that are not a plain pass yet give no reason code `tiergate explain` knows (should be none). */
import { isReasonCode } from '../../src/catalogue/reasons/index.ts';
import type { CheckResult } from '../../src/catalogue/types.ts';

export const unexplained = (checks: readonly CheckResult[]): string[] =>
  checks
    .filter((c) => c.verdict !== 'pass' && (c.reasons.length === 0 || !c.reasons.every((r) => isReasonCode(r.code))))
    .map((c) => `${c.id} [${c.tier ?? 'all'}] ${c.verdict}: ${c.actual}`);
