/**
 * revocation.csv: one row per trial and edge, for users to hand to auditors or chart themselves.
 * Times are ms from the revoke call (monotonic clock); empty cells are unknown. No key appears.
 */
import { edgeBounds } from '../verdicts/support/revocation-bounds.ts';
import type { RevocationProbeRun } from '../measure/revocation-records.ts';

/** The file a revocation run's brackets are written to, in the run folder. */
export const REVOCATION_CSV = 'revocation.csv';

export const REVOCATION_CSV_COLUMNS = [
  'trial',
  'edge',
  'edgeNode',
  'lowerMs',
  'upperMs',
  'widthMs',
  'unusableProbes',
  'revokeCallMs',
  'stoppedBy',
] as const;

const cell = (value: string | number | null): string => {
  if (value === null) return '';
  if (typeof value === 'number') return String(Math.round(value * 10) / 10);
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
};

export function revocationCsv(runs: readonly RevocationProbeRun[], rejectStatus: number): string {
  const lines: string[] = [REVOCATION_CSV_COLUMNS.join(',')];
  for (const run of runs) {
    for (const b of edgeBounds(run, rejectStatus)) {
      lines.push(
        [b.trial, b.edge, b.edgeNode, b.lowerMs, b.upperMs, b.widthMs, b.unusableProbes, b.revokeCallMs, run.stoppedBy]
          .map(cell)
          .join(','),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
