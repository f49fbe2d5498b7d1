/**
 * The rate-limit header dialect a run declared, as its observations carry it (issue 29): a config's
 * `"headers": "ietf"` is the owner's acceptance of a departure from §8's X-RateLimit-*, and the
 * header checks then judge that dialect exactly. Observations read under a declared dialect keep its
 * fields beside Limit, Remaining and Reset (measure/rate-limit-reading.ts), so a verdict learns the
 * dialect from them: `tiergate verify` judges again with no argument more. Pure.
 */
import { DRAFT_6_FIELDS, POLICY_FIELD, RATELIMIT_FIELD } from '../../contract/rate-limit-fields.ts';
import { RATE_LIMIT_DIALECTS, type RateLimitDialectName } from '../../contract/rate-limit-dialects.ts';
import type { Observation } from '../../measure/observation.ts';
import { serverDateSeconds } from './window-integrity.ts';

/** A dialect a config declares in place of §8's. */
export type DeclaredDialect = Exclude<RateLimitDialectName, 'x-ratelimit'>;

/** Limit, Remaining or Reset: the figures an observation keeps in any dialect. */
export type RateLimitFigure = 'Limit' | 'Remaining' | 'Reset';

/** The dialect the observations were read in: the first that carries one names it; null under §8's. */
export function declaredDialectOf(obs: Iterable<Observation | null | undefined>): DeclaredDialect | null {
  for (const o of obs) if (o?.rateLimit.dialect) return o.rateLimit.dialect.name;
  return null;
}

/** A field's name as a sentence writes it: `RateLimit-Policy`, `RateLimit`, `RateLimit-Remaining`. */
export function fieldTitle(field: string): string {
  return field
    .split('-')
    .map((part) => (part === 'ratelimit' ? 'RateLimit' : part.charAt(0).toUpperCase() + part.slice(1)))
    .join('-');
}

/** The dialect's fields, as sentences name them, in the order it writes them. */
export function dialectFieldTitles(dialect: DeclaredDialect): string[] {
  return RATE_LIMIT_DIALECTS[dialect].fields.map(fieldTitle);
}

/** The field each figure is read from in `dialect` (measure/rate-limit-reading.ts reads them so). */
export function figureField(dialect: DeclaredDialect, figure: RateLimitFigure): string {
  if (dialect === 'ietf-draft-6')
    return figure === 'Limit'
      ? DRAFT_6_FIELDS.limit
      : figure === 'Remaining'
        ? DRAFT_6_FIELDS.remaining
        : DRAFT_6_FIELDS.reset;
  return dialect === 'ietf' && figure === 'Limit' ? POLICY_FIELD : RATELIMIT_FIELD;
}

/** How a sentence names a figure in `dialect`: `r in RateLimit`, `RateLimit-Remaining`, `limit in RateLimit`. */
export function figureTitle(dialect: DeclaredDialect | null, figure: RateLimitFigure): string {
  if (dialect === null) return `X-RateLimit-${figure}`;
  const field = fieldTitle(figureField(dialect, figure));
  if (dialect === 'ietf-draft-6') return field;
  if (dialect === 'ietf-draft-7') return `${figure.toLowerCase()} in ${field}`;
  const parameter = figure === 'Limit' ? 'q' : figure === 'Remaining' ? 'r' : 't';
  return `${parameter} in ${field}`;
}

/** Where the dialect writes when the quota returns in seconds until (every dialect declared today). */
export function resetInSecondsUntil(dialect: DeclaredDialect | null): boolean {
  return dialect !== null && RATE_LIMIT_DIALECTS[dialect].resetForm === 'seconds-until';
}

/**
 * When the quota returns, epoch seconds, where a response writes it as seconds until (t): placed at
 * its Date + t. Date has second resolution and may be a second stale, so the instant is known to a
 * second or two either way. Null without a Date or a t.
 */
export function placedResetOf(o: Observation): number | null {
  const t = o.rateLimit.reset.value;
  const date = serverDateSeconds(o);
  return t === null || date === null ? null : date + t;
}
