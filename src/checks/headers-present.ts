/**
 * HDR-PRESENT (§8): X-RateLimit-Limit, -Remaining and -Reset are present on every HTTP response,
 * errors and HEAD included. Presence only: a header counts when it arrived at all, whatever its value.
 */
import type { Observation } from '../observe/observation.ts';
import { countOf, finding, listSome } from './finding.ts';
import type { Finding } from './types.ts';

export function headersPresentVerdict(obs: readonly Observation[]): Finding {
  const responses = obs.filter((o) => o.status !== null);
  const transport = obs.length - responses.length;
  const expected = `X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset on every response (${responses.length})`;
  const notes = transport > 0 ? [`${countOf(transport, 'request')} without a response ignored`] : [];

  const byStatus: Record<string, { total: number; missing: number }> = {};
  const missing: { o: Observation; names: string[] }[] = [];
  const firstOfStatus = new Map<number, number>();
  for (const o of responses) {
    const status = o.status ?? 0;
    const row = (byStatus[String(status)] ??= { total: 0, missing: 0 });
    row.total += 1;
    if (!firstOfStatus.has(status)) firstOfStatus.set(status, o.id);
    const names = missingNames(o);
    if (names.length > 0) {
      row.missing += 1;
      missing.push({ o, names });
    }
  }
  const data = { byStatus };

  if (responses.length === 0) {
    return finding('inconclusive', {
      expected,
      actual: obs.length === 0 ? 'no requests were sent' : `none of ${obs.length} requests got a response`,
      evidence: obs.slice(0, 5).map((o) => o.id),
      notes,
      data,
    });
  }
  if (missing.length > 0) {
    const items = missing.map(({ o, names }) => `${o.status} ${o.method} ${o.path} (#${o.id}) lacks ${names.join(', ')}`);
    return finding('fail', {
      expected,
      actual: `${missing.length} of ${responses.length} responses lack rate-limit headers: ${listSome(items)}`,
      evidence: missing.slice(0, 5).map(({ o }) => o.id),
      notes,
      data,
    });
  }
  const statuses = [...firstOfStatus.keys()].sort((a, b) => a - b).join(', ');
  return finding('pass', {
    expected,
    actual: `all three on all ${responses.length} responses (statuses ${statuses})`,
    evidence: [...firstOfStatus.values()],
    notes,
    data,
  });
}

function missingNames(o: Observation): string[] {
  const names: string[] = [];
  if (o.rateLimit.limit.raw === null) names.push('Limit');
  if (o.rateLimit.remaining.raw === null) names.push('Remaining');
  if (o.rateLimit.reset.raw === null) names.push('Reset');
  return names;
}
