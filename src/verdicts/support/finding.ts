/**
 * How a verdict function assembles its Finding, and how it names the observations it cites.
 * Shared by every verdict of src/verdicts/; pure.
 */
import type { z } from 'zod';
import type { HeaderValue, Observation } from '../../measure/observation.ts';
import type { Finding, FindingData, MeasureAgain, Verdict } from '../../catalogue/types.ts';
import { because, reasonText, type Reason, type ReasonFigures } from '../../catalogue/reasons/index.ts';
import { whyNotInteger } from '../../catalogue/reasons/headers.ts';

export { TOO_MANY_REQUESTS } from '../../contract/types.ts';

/** Verdicts a pure check can reach; `skipped` is the caller's decision. */
export type JudgedVerdict = Exclude<Verdict, 'skipped'>;

export interface FindingParts<Data extends FindingData> {
  readonly expected: string;
  readonly actual: string;
  readonly evidence?: readonly (number | null | undefined)[];
  readonly notes?: readonly string[];
  /** Why the finding is not a plain pass, or what a pass rests on (catalogue/reasons): codes and figures. */
  readonly reasons?: readonly Reason[];
  readonly data?: Data;
  /** Inconclusive for a spoiled measurement, and where to measure it again (Finding.measureAgain). */
  readonly measureAgain?: MeasureAgain | false;
}

/** At least one reason: what a finding that is not a plain pass must give. */
export type Reasons = readonly [Reason, ...Reason[]];

/**
 * A finding. A fail or an inconclusive cannot be built without a reason (a type error); a pass may
 * carry reasons for what it rests on. Where the verdict is worked out (`judgedFinding`), the same
 * rule holds when it runs.
 */
export function finding<Data extends FindingData>(verdict: 'pass', parts: FindingParts<Data>): Finding<Data>;
export function finding<Data extends FindingData>(
  verdict: 'fail' | 'inconclusive',
  parts: FindingParts<Data> & { readonly reasons: Reasons },
): Finding<Data>;
export function finding<Data extends FindingData>(verdict: JudgedVerdict, parts: FindingParts<Data>): Finding<Data> {
  return judgedFinding(verdict, parts);
}

/** A list of reasons known to hold one at least (built from what failed): a tiergate bug otherwise. */
export function atLeastOne(reasons: readonly Reason[]): Reasons {
  if (reasons.length === 0) throw new Error('a finding that is not a pass needs a reason code, and none was given');
  return reasons as Reasons;
}

/** A finding whose verdict was worked out: a fail or an inconclusive without a reason is a tiergate bug. */
export function judgedFinding<Data extends FindingData>(
  verdict: JudgedVerdict,
  parts: FindingParts<Data>,
): Finding<Data> {
  if (verdict !== 'pass' && (parts.reasons ?? []).length === 0)
    throw new Error(`a ${verdict} finding without a reason code ("${parts.actual}")`);
  const evidence: number[] = [];
  for (const id of parts.evidence ?? []) {
    if (typeof id === 'number' && !evidence.includes(id)) evidence.push(id);
  }
  return {
    verdict,
    expected: parts.expected,
    actual: parts.actual,
    evidence,
    notes: [...(parts.notes ?? [])],
    ...(parts.reasons && parts.reasons.length > 0 ? { reasons: [...parts.reasons] } : {}),
    ...(parts.data ? { data: parts.data } : {}),
    ...(parts.measureAgain && verdict === 'inconclusive' ? { measureAgain: parts.measureAgain } : {}),
  };
}

/** fail beats inconclusive beats pass. */
export function worst(verdicts: Iterable<JudgedVerdict>): JudgedVerdict {
  let result: JudgedVerdict = 'pass';
  for (const v of verdicts) {
    if (v === 'fail') return 'fail';
    if (v === 'inconclusive') result = 'inconclusive';
  }
  return result;
}

export { isAdmitted, isAdmittedStatus } from '../../measure/observation.ts';

/** No HTTP response came back (timeout, reset, refused, unparseable headers). */
export function isTransportFailure(o: Observation): boolean {
  return o.status === null;
}

/** "429 GET /recruiter/jobs (#12)", or "ECONNRESET on GET /recruiter/jobs (#12)". */
export function describe(o: Observation): string {
  const what = o.status !== null ? String(o.status) : `${o.error?.code ?? 'no response'} on`;
  return `${what} ${o.method} ${o.path} (#${o.id})`;
}

/** The outcome of a request in a sentence fragment: "200", "429", "ECONNRESET". */
export function outcomeOf(o: Observation): string {
  return o.status !== null ? String(o.status) : (o.error?.code ?? 'no response');
}

/** Why a header did not parse as a non-negative integer, for messages: `'abc' is not an integer`. */
export function headerProblem(name: string, h: HeaderValue): string | null {
  if (h.raw === null) return `${name} absent`;
  if (h.value !== null) return null;
  return `${name} '${clip(h.raw, 40)}' ${whyNotInteger(h.raw)}`;
}

/** The figures of reason `body-not-json` for a response whose body was not judged as JSON. */
export function bodyNotJson(o: Observation): ReasonFigures<'body-not-json'> {
  return { request: o.id, contentType: o.contentType, excerpt: o.bodyExcerpt, bytes: o.bodyBytes };
}

/**
 * Why a response's body was not judged as JSON: the prober parses only a JSON Content-Type, so a
 * JSON text sent as text/plain lands here too, and the Content-Type says which it was.
 */
export function notJson(o: Observation): string {
  return reasonText(because('body-not-json', bodyNotJson(o)));
}

/** "a; b; c and 4 more". */
export function listSome(items: readonly string[], max = 3, separator = '; '): string {
  if (items.length <= max) return items.join(separator);
  return `${items.slice(0, max).join(separator)} and ${items.length - max} more`;
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** zod issues as "path: message" (issuePath). */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issuePath(issue)}: ${issue.message}`);
}

/** A zod issue's path, dotted ("data.0.scope"), "(body)" for the root. */
export function issuePath(issue: z.core.$ZodIssue): string {
  return issue.path.map((p) => String(p)).join('.') || '(body)';
}

export { countOf } from '../../util/phrases.ts';
