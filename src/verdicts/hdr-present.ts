/**
 * HDR-PRESENT (§8): X-RateLimit-Limit, -Remaining and -Reset are present on every HTTP response,
 * errors and HEAD included. Presence only: a header counts when it arrived at all, whatever its value.
 * Judged over a whole run, so it is a tally fed one observation at a time (bounded memory: only the
 * first few offenders are kept as evidence), and a verdict read from it; pure.
 * Under a dialect the config declares (observations carry it), every field of that dialect is
 * required instead, its policy field included, and the reasons name those fields.
 */
import type { Observation } from '../measure/observation.ts';
import { finding, listSome } from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';
import { because, type Reason } from '../catalogue/reasons/index.ts';
import { dialectFieldTitles, fieldTitle, type DeclaredDialect } from './support/dialect.ts';
import { RATE_LIMIT_DIALECTS } from '../contract/rate-limit-dialects.ts';

/** A response lacking rate-limit headers: which, by their short names (Limit, Remaining, Reset), or a declared dialect's fields. */
export interface LackingResponse {
  readonly request: number;
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly lacks: readonly string[];
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
  /** The dialect the first response was read in, where one was declared. */
  #dialect: DeclaredDialect | null = null;
  /** The dialect's fields some response lacked, in the dialect's order. */
  readonly #fieldsLacked = new Set<string>();

  add(o: Observation): void {
    this.#requests += 1;
    if (this.#firstRequests.length < 5) this.#firstRequests.push(o.id);
    if (o.status === null) return;
    this.#responses += 1;
    const row = (this.#byStatus[String(o.status)] ??= { total: 0, missing: 0 });
    row.total += 1;
    if (!this.#firstOfStatus.has(o.status)) this.#firstOfStatus.set(o.status, o.id);
    this.#dialect ??= o.rateLimit.dialect?.name ?? null;
    const lacks = o.rateLimit.dialect
      ? missingFields(o.rateLimit.dialect.name, o.rateLimit.dialect.fields)
      : missingNames(o);
    if (o.rateLimit.dialect) for (const field of lacks) this.#fieldsLacked.add(field);
    if (lacks.length === 0) return;
    row.missing += 1;
    this.#missingCount += 1;
    if (this.#lacking.length < KEPT)
      this.#lacking.push({ request: o.id, status: o.status, method: o.method, path: o.path, lacks });
  }

  verdict(): Finding<HeadersPresentData> {
    const responses = this.#responses;
    const transport = this.#requests - responses;
    const dialect = this.#dialect;
    const expected =
      dialect === null
        ? `X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset on every response (${responses})`
        : `${dialectFieldTitles(dialect).join(' and ')} (the declared ${dialect} dialect) on every response (${responses})`;
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
      const counts = { missing: this.#missingCount, responses, statuses, firstRequests };
      const missing: Reason =
        dialect === null
          ? because('rate-limit-headers-missing', counts)
          : because('dialect-fields-missing', { dialect, fields: this.#lackedInOrder(dialect), ...counts });
      return finding('fail', {
        expected,
        actual: `${this.#missingCount} of ${responses} responses lack rate-limit headers: ${listSome(items)}`,
        evidence: firstRequests,
        reasons: [missing, ...ignored],
        data,
      });
    }
    const statuses = [...this.#firstOfStatus.keys()].sort((a, b) => a - b).join(', ');
    return finding('pass', {
      expected,
      actual: `${dialect === null ? 'all three' : 'every field'} on all ${responses} responses (statuses ${statuses})`,
      evidence: [...this.#firstOfStatus.values()],
      reasons: ignored,
      data,
    });
  }

  /** The dialect's fields lacked anywhere, as sentences name them, in the dialect's order. */
  #lackedInOrder(dialect: DeclaredDialect): string[] {
    return RATE_LIMIT_DIALECTS[dialect].fields.map(fieldTitle).filter((f) => this.#fieldsLacked.has(f));
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

/** The fields of `dialect` a response lacks (received by lower-case name), as sentences name them. */
function missingFields(dialect: DeclaredDialect, received: Readonly<Record<string, string>>): string[] {
  return RATE_LIMIT_DIALECTS[dialect].fields.filter((f) => received[f] === undefined).map(fieldTitle);
}
