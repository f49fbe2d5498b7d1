/** What the report draws from a result: its data, by the chart its check's module names. */
import { reportOf } from '../checks/catalogue.ts';
import type { CheckResult } from '../catalogue/types.ts';
import type { ChartedData } from './types.ts';

/** A result's charted data, with what it draws; null when its check draws nothing or it has no data. */
export function chartedData(result: CheckResult): ChartedData | null {
  const { draws } = reportOf(result.id);
  if (draws === undefined || result.data === undefined) return null;
  // Valid results had this data checked against its chart's type on the way in (results/schema.ts).
  return { kind: draws, data: result.data } as ChartedData;
}
