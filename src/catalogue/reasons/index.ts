/**
 * Every reason code, one closed union: why a result is not a plain pass (fail, inconclusive,
 * skipped, measured again) or what a pass rests on. Each area declares its own in a module beside
 * this one; this module joins them and renders the sentence for a reason from its code and figures.
 */
import type { Figure, ReasonDefinition } from './define.ts';
import { ACCESS_REASONS } from './access.ts';
import { HEADERS_REASONS } from './headers.ts';
import { MEASUREMENT_REASONS } from './measurement.ts';
import { NOT_RUN_REASONS } from './not-run.ts';
import { QUOTA_REASONS } from './quota.ts';
import { REVOCATION_REASONS } from './revocation.ts';

/** Each area's table; a code belongs to one (a test fails where two declare the same). */
export const REASON_AREAS = {
  measurement: MEASUREMENT_REASONS,
  headers: HEADERS_REASONS,
  'not-run': NOT_RUN_REASONS,
  revocation: REVOCATION_REASONS,
  quota: QUOTA_REASONS,
  access: ACCESS_REASONS,
} as const;

export const REASONS = {
  ...MEASUREMENT_REASONS,
  ...HEADERS_REASONS,
  ...NOT_RUN_REASONS,
  ...REVOCATION_REASONS,
  ...QUOTA_REASONS,
  ...ACCESS_REASONS,
} as const;

export type ReasonCode = keyof typeof REASONS;
export const REASON_CODES = Object.keys(REASONS) as readonly ReasonCode[];

type FiguresOf<D> = D extends ReasonDefinition<infer F> ? F : never;
/** A reason as results carry it: its code and the figures behind it. */
export type Reason = { [C in ReasonCode]: Readonly<{ code: C } & FiguresOf<(typeof REASONS)[C]>> }[ReasonCode];
/** The figures of reason `C`, without its code. */
export type ReasonFigures<C extends ReasonCode> = FiguresOf<(typeof REASONS)[C]>;

/** A reason of code `code` with `figures`: `because('answers-lost', { lost: 1, of: 60 })`. */
export function because<C extends ReasonCode>(code: C, figures: ReasonFigures<C>): Reason {
  return { code, ...figures } as Reason;
}

export function isReasonCode(value: string): value is ReasonCode {
  return value in REASONS;
}

export function reasonDefinition(code: ReasonCode): ReasonDefinition<Readonly<Record<string, Figure>>> {
  return REASONS[code] as ReasonDefinition<Readonly<Record<string, Figure>>>;
}

/** The one sentence for a reason, from its figures. */
export function reasonText(reason: Reason): string {
  const { code, ...figures } = reason;
  return reasonDefinition(code).text(figures);
}

/** Why a result is what it is, in words: its reasons' sentences, then its other notes. */
export function whyLines(result: {
  readonly reasons?: readonly Reason[];
  readonly notes: readonly string[];
}): string[] {
  return [...(result.reasons ?? []).map(reasonText), ...result.notes];
}

export type { Figure, ReasonDefinition, ReasonVerdict } from './define.ts';
