/**
 * HDR-PRESENT (§8): X-RateLimit-Limit, -Remaining and -Reset are present on every HTTP response,
 * errors and HEAD included. Presence only: a header counts when it arrived at all, whatever its value.
 * Judged over a whole run, so it is a tally fed one observation at a time (bounded memory: only the
 * first few offenders are kept as evidence), and a verdict read from it; pure.
 */
import type { Observation } from '../measure/observation.ts';
import { finding, listSome } from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';
import { because } from '../catalogue/reasons/index.ts';

/** A response lacking rate-limit headers: which, by their short names (Limit, Remaining, Reset). */
export interface LackingResponse {
  readonly request: number;
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly lacks: readonly RateLimitHeader[];
}

type RateLimitHeader = 'Limit' | 'Remaining' | 'Reset';

/** `data` of HDR-PRESENT: per status, the responses and those lacking a rate-limit header; the first of those (up to 20). */
export type HeadersPresentData = {
  readonly byStatus: Readonly<Record<string, { readonly total: number; readonly missing: number }>>;
  readonly lacking: readonly LackingResponse[];
};

/** Offending responses kept as evidence and for the message; the rest are counted. */
const KEPT = 20;

export class HeadersPresentTally {
  #requests = 0;
  #responses = 0;
  readonly #byStatus: Record<string, { total: number; missing: number }> = {};
  readonly #firstOfStatus = new Map<number, number>();
  readonly #firstRequests: number[] = [];
  #missingCount = 0;
  readonly #lacking: LackingResponse[] = [];

  add(o: Observation): void {
    this.#requests += 1;
    if (this.#firstRequests.length < 5) this.#firstRequests.push(o.id);
    if (o.status === null) return;
    this.#responses += 1;
    const row = (this.#byStatus[String(o.status)] ??= { total: 0, missing: 0 });
    row.total += 1;
    if (!this.#firstOfStatus.has(o.status)) this.#firstOfStatus.set(o.status, o.id);
    const lacks = missingNames(o);
    if (lacks.length === 0) return;
    row.missing += 1;
    this.#missingCount += 1;
    if (this.#lacking.length < KEPT)
      this.#lacking.push({ request: o.id, status: o.status, method: o.method, path: o.path, lacks });
  }

  verdict(): Finding<HeadersPresentData> {
    const responses = this.#responses;
    const transport = this.#requests - responses;
    const expected = `X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset on every response (${responses})`;
    const ignored = transport > 0 ? [because('unanswered-ignored', { requests: transport })] : [];
    const data: HeadersPresentData = { byStatus: this.#byStatus, lacking: this.#lacking };
    if (responses === 0) {
      return finding('inconclusive', {
        expected,
        actual: this.#requests === 0 ? 'no requests were sent' : `none of ${this.#requests} requests got a response`,
        evidence: this.#firstRequests,
        reasons: [because('no-answers-to-judge', { sent: this.#requests })],
        data,
      });
    }
    if (this.#missingCount > 0) {
      const listed = this.#lacking.map(
        (r) => `${r.status} ${r.method} ${r.path} (#${r.request}) lacks ${r.lacks.join(', ')}`,
      );
      const unlisted = this.#missingCount - listed.length;
      const items = unlisted > 0 ? [...listed, `${unlisted} more not listed`] : listed;
      const statuses = Object.entries(this.#byStatus)
        .filter(([, row]) => row.missing > 0)
        .map(([status]) => Number(status));
      const firstRequests = this.#lacking.slice(0, 5).map((r) => r.request);
      return finding('fail', {
        expected,
        actual: `${this.#missingCount} of ${responses} responses lack rate-limit headers: ${listSome(items)}`,
        evidence: firstRequests,
        reasons: [
          because('rate-limit-headers-missing', { missing: this.#missingCount, responses, statuses, firstRequests }),
          ...ignored,
        ],
        data,
      });
    }
    const statuses = [...this.#firstOfStatus.keys()].sort((a, b) => a - b).join(', ');
    return finding('pass', {
      expected,
      actual: `all three on all ${responses} responses (statuses ${statuses})`,
      evidence: [...this.#firstOfStatus.values()],
      reasons: ignored,
      data,
    });
  }
}

export function headersPresentVerdict(obs: readonly Observation[]): Finding<HeadersPresentData> {
  const tally = new HeadersPresentTally();
  for (const o of obs) tally.add(o);
  return tally.verdict();
}

function missingNames(o: Observation): RateLimitHeader[] {
  const names: RateLimitHeader[] = [];
  if (o.rateLimit.limit.raw === null) names.push('Limit');
  if (o.rateLimit.remaining.raw === null) names.push('Remaining');
  if (o.rateLimit.reset.raw === null) names.push('Reset');
  return names;
}
