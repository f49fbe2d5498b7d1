/**
 * `tiergate doctor`'s word on rate-limit header dialects: whether the answers to its keyed requests
 * carry the dialect the config declares (§8's X-RateLimit-* unless it says otherwise), read whole
 * whatever is declared (contract/rate-limit-sent.ts). A deployment that speaks another dialect is
 * named with the two ways out: declare what it sends, or keep §8's names and expect HDR-* to fail.
 */
import {
  DEFAULT_RATE_LIMIT_DIALECT,
  RATE_LIMIT_DIALECT_NAMES,
  type RateLimitDialectName,
} from '../contract/rate-limit-dialects.ts';
import type { DialectsSent } from '../contract/rate-limit-sent.ts';

/** One answer's dialects, and the edge it came from. */
export interface HeardDialects {
  readonly edge: string;
  readonly sent: DialectsSent;
}

/** What the finding is about, as data. */
export interface DialectFindingData {
  readonly edge: string;
  readonly declared: RateLimitDialectName;
  /** The dialects the edge's answers carried, in RATE_LIMIT_DIALECT_NAMES order. */
  readonly sent: readonly RateLimitDialectName[];
  readonly answers: number;
  /** Answers carrying X-RateLimit-* beside another dialect whose figures differed. */
  readonly disagreeing: number;
}

export interface DialectFinding {
  readonly ok: boolean;
  readonly input: string;
  readonly detail: string;
  readonly headers: DialectFindingData;
}

/** Each dialect as a sentence names it. */
const SPOKEN: Readonly<Record<RateLimitDialectName, string>> = {
  'x-ratelimit': "§8's X-RateLimit-Limit, -Remaining and -Reset",
  ietf: 'the IETF RateLimit fields (RateLimit and RateLimit-Policy)',
  'ietf-draft-7': "draft 7's RateLimit: limit=…, remaining=…, reset=…",
  'ietf-draft-6': "draft 6's RateLimit-Limit, -Remaining and -Reset",
};

/** What the config's `headers` should say for a deployment that sends `dialect`. */
const declaring = (dialect: RateLimitDialectName): string =>
  dialect === DEFAULT_RATE_LIMIT_DIALECT
    ? `drop "headers" from the config (§8's names are the default)`
    : `add "headers": "${dialect}" to the config`;

/** One finding per edge the keyed requests went to; none where nothing answered them. */
export function dialectFindings(declared: RateLimitDialectName, heard: readonly HeardDialects[]): DialectFinding[] {
  const edges = [...new Set(heard.map((h) => h.edge))];
  return edges.map((edge) => {
    const answers = heard.filter((h) => h.edge === edge).map((h) => h.sent);
    const sent = RATE_LIMIT_DIALECT_NAMES.filter((d) => answers.some((a) => a.sent.some((r) => r.dialect === d)));
    const disagreeing = answers.filter((a) => a.agreement.some((g) => g.agrees === false)).length;
    const data: DialectFindingData = { edge, declared, sent, answers: answers.length, disagreeing };
    return { ...findingOf(data), headers: data };
  });
}

function findingOf(d: DialectFindingData): { ok: boolean; input: string; detail: string } {
  const input = `headers ${d.declared}`;
  const counted = `${d.answers} answer${d.answers === 1 ? '' : 's'}`;
  if (d.sent.length === 0)
    return {
      ok: false,
      input,
      detail: `${d.edge} sent no rate-limit field on ${counted}: HDR-PRESENT fails whatever is declared; have the deployment send ${SPOKEN[d.declared]}`,
    };
  const others = d.sent.filter((s) => s !== d.declared);
  if (others.length === d.sent.length) {
    const [speaks] = others as [RateLimitDialectName];
    const keep =
      d.declared === DEFAULT_RATE_LIMIT_DIALECT
        ? "or keep §8's names and expect HDR-PRESENT, HDR-LIMIT, HDR-REMAINING and HDR-RESET to fail"
        : `or have the deployment send ${SPOKEN[d.declared]}`;
    return {
      ok: false,
      input,
      detail: `${d.edge} sends ${SPOKEN[speaks]}, the config declares ${d.declared}: ${declaring(speaks)}, ${keep}`,
    };
  }
  const beside = others.length === 0 ? '' : `, and ${others.join(', ')} beside them${agreement(d)}`;
  return { ok: true, input, detail: `${d.edge} sends ${SPOKEN[d.declared]} as declared (${counted})${beside}` };
}

/** Whether the X-RateLimit triple and another dialect told the same state, where both were sent. */
function agreement(d: DialectFindingData): string {
  if (!d.sent.includes('x-ratelimit')) return '';
  return d.disagreeing === 0
    ? ' (no figure differing from X-RateLimit-*)'
    : ` (telling other figures than X-RateLimit-* on ${d.disagreeing} of ${d.answers} answers)`;
}
