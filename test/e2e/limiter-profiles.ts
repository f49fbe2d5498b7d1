/**
 * What the limiter profile must find on the reference target, per variant and fault: the facts each
 * one shows (everything not named is the clean target's). The matrix tests hold discovery to these.
 */
import type { FaultName } from '../../src/reference-server/faults.ts';
import type { VariantName } from '../../src/reference-server/variants.ts';
import type { LimiterProfile, ResetFormat, WindowAlgorithm } from '../../src/profile/types.ts';

export interface ExpectedProfile {
  readonly algorithm: WindowAlgorithm;
  readonly resetFormat: ResetFormat;
  readonly resetSteady: boolean;
  readonly headers: boolean;
  readonly head: boolean;
  readonly notFound: boolean;
  readonly forbidden: boolean;
  readonly sharedAcrossRoutes: boolean;
}

export const CLEAN: ExpectedProfile = {
  algorithm: 'fixed-aligned',
  resetFormat: 'epoch-seconds',
  resetSteady: true,
  headers: true,
  head: false,
  notFound: false,
  forbidden: false,
  sharedAcrossRoutes: true,
};

/** This value, or unknown: what some runs cannot see, but none may get wrong. */
interface OrUnknown<T> {
  readonly orUnknown: T;
}
export const orUnknown = <T>(value: T): OrUnknown<T> => ({ orUnknown: value });

/** Only the facts a variant or fault changes; others hold as on the clean target, or are not asserted (null). */
type Shown = { readonly [K in keyof ExpectedProfile]?: ExpectedProfile[K] | OrUnknown<ExpectedProfile[K]> | null };

export const VARIANT_PROFILES: Readonly<Record<VariantName, Shown>> = {
  'first-request-windows': { algorithm: 'fixed-first-request' },
  // A window a read opens ends up to a second early: at 2 s windows an aligned grid may fit that end
  // too, and two rounds of reads may not tell them apart. Unknown then, never aligned.
  'whole-second-windows': { algorithm: orUnknown('fixed-first-request') },
  'head-counts': { head: true },
  'independent-class-windows': {},
  'counts-rejected': {},
  'counts-errors': { notFound: true, forbidden: true },
  // The discovery holds nothing in flight: the queue shows in CONCURRENCY-CAP's answer (variant-matrix.test.ts).
  'cap-queues': {},
  'synchronous-bulk': {},
};

export const FAULT_PROFILES: Readonly<Partial<Record<FaultName, Shown>>> = {
  // A bucket's Reset moves with every admission, but an admission's Reset change that falls after the
  // end the one before announced may be a boundary, so it is not taken as a move: unknown, never wrong.
  'token-bucket': {
    algorithm: 'refilling',
    resetSteady: orUnknown(false),
    sharedAcrossRoutes: orUnknown(true),
    head: null,
    notFound: null,
    forbidden: null,
  },
  'per-route-quota': { sharedAcrossRoutes: false },
  // A countdown in whole seconds places window ends only to the second, as Retry-After does without
  // headers: at 2 s windows on a loaded machine that can be too coarse to tell aligned windows from
  // first-request ones. The profile then leaves it unknown, never wrong.
  'reset-relative': { resetFormat: 'seconds-until', algorithm: orUnknown('fixed-aligned') },
  'reset-millis': { resetFormat: 'epoch-millis' },
  // When discovery uses the window up near its end, the refusals span too little to see Reset move,
  // and the window seems to end before the (drifted) end announced: both stay unknown, never wrong.
  'reset-drifts': { resetSteady: orUnknown(false), algorithm: orUnknown('fixed-aligned') },
  // Without headers, only Retry-After (whole seconds) places window ends: at 2 s windows that can be
  // too coarse to tell aligned windows from first-request ones, and the profile then says so.
  'no-rate-headers': {
    headers: false,
    resetFormat: 'absent',
    resetSteady: null,
    head: null,
    notFound: null,
    forbidden: null,
    sharedAcrossRoutes: null,
    algorithm: null,
  },
  // Remaining that never moves hides what counts, and whether the reads after the expiry read rolled
  // over (Remaining as high as before is no rollover where it never falls): only the end may tell.
  'remaining-stuck': {
    head: null,
    notFound: null,
    forbidden: null,
    sharedAcrossRoutes: null,
    resetSteady: null,
    algorithm: orUnknown('fixed-aligned'),
  },
  // One shared bucket: the tier's other organizations' traffic (the lanes run beside the discovery)
  // moves Remaining and spends the window under it.
  'global-quota': {
    head: null,
    notFound: null,
    forbidden: null,
    sharedAcrossRoutes: null,
    algorithm: null,
    resetSteady: null,
  },
  'quota-off-by-one': {},
  'scope-unenforced': { forbidden: null },
  'headers-missing-on-errors': { notFound: null, forbidden: null },
  'racy-admission': {},
};

/** The facts a profile shows, in the shape of ExpectedProfile. */
export function shownBy(profile: LimiterProfile): ExpectedProfile {
  return {
    algorithm: profile.read.algorithm.value as WindowAlgorithm,
    resetFormat: profile.read.resetFormat.value as ResetFormat,
    resetSteady: profile.read.resetSteady.value as boolean,
    headers: profile.headers.value as boolean,
    head: profile.counts.head.value as boolean,
    notFound: profile.counts['not-found'].value as boolean,
    forbidden: profile.counts.forbidden.value as boolean,
    sharedAcrossRoutes: profile.readSharedAcrossRoutes.value as boolean,
  };
}

/** What the case wants and what the profile learned, over the facts it asserts (null in the table: not asserted). */
export function profileComparison(
  profile: LimiterProfile,
  shown: Shown,
): { wanted: Partial<ExpectedProfile>; learned: Partial<ExpectedProfile> } {
  const all = { ...CLEAN, ...shown };
  const learned = shownBy(profile);
  const keys = (Object.keys(all) as (keyof ExpectedProfile)[]).filter((k) => all[k] !== null);
  const wantedOf = (k: keyof ExpectedProfile) => {
    const want = all[k];
    if (want === null || typeof want !== 'object') return want;
    return learned[k] === null ? null : want.orUnknown;
  };
  return {
    wanted: Object.fromEntries(keys.map((k) => [k, wantedOf(k)])),
    learned: Object.fromEntries(keys.map((k) => [k, learned[k]])),
  };
}
