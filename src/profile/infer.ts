/**
 * From a discovery's observations to a limiter profile: pure, every answer with its evidence or the
 * reason it stayed open. Nothing here assumes what the spec leaves open; it reads the server.
 */
import { TOO_MANY_REQUESTS, type QuotaClass } from '../contract/types.ts';
import { isAdmitted, type Observation } from '../measure/observation.ts';
import type { DiscoveryPhase } from '../measure/tags.ts';
import type { CountingPair, DiscoveryRecord, PairQuestion } from './record.ts';
import {
  resetFormatOf,
  resetMovement,
  resetMoved,
  endEstimateOf,
  type EndPlacing,
  type ResetMovement,
} from '../measure/reset-format.ts';
import type {
  ClassProfile,
  CountingQuestion,
  DialectProfile,
  LimiterProfile,
  Learned,
  ResetFormat,
  WindowAlgorithm,
  WindowPhase,
} from './types.ts';
import { CONCURRENCY_NOT_LEARNED } from './concurrency.ts';
import { learned, placingOf, undecided } from './learned.ts';
import { algorithmOf } from './window-algorithm.ts';
import { dialectProfileOf } from './dialects.ts';
import { learnedPolicyClasses } from './policy-classes.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import { quotaClassOfPath } from '../contract/lookup.ts';

/** The dialects sent and, where the declared one names policies, which policy each quota class draws on. */
function dialectsOf(record: DiscoveryRecord, sent: NonNullable<DiscoveryRecord['dialects']>): DialectProfile {
  const classes = learnedPolicyClasses(record.all, (path) => quotaClassOfPath(recruitingApi, path));
  return { ...dialectProfileOf(sent, answered(record)), ...(classes ? { classes } : {}) };
}

export function inferProfile(record: DiscoveryRecord, clockOffsetMs = 0): LimiterProfile {
  // The reads the key holding every scope sent (the pairs' probes are other requests, even on the same path).
  const probes = new Set(record.pairs.map((p) => p.probe.id));
  const reads = record.all.filter((o) => o.status !== null && o.path === readPath(record) && !probes.has(o.id));
  const headers = headersLearned(reads);
  const pair = (q: PairQuestion) => record.pairs.find((p) => p.question === q);
  const resetSteady = steadiness(record, readPath(record), placingOf(record, clockOffsetMs));
  const algorithm = algorithmOf(record, clockOffsetMs, resetSteady.value === true);
  // A limiter that gives quota back between two reads can hide a decrement, never invent one: there
  // only "it counted" is evidence.
  const refills = algorithm.value === 'refilling';
  const counts = Object.fromEntries(
    (['head', 'not-found', 'forbidden', 'unauthenticated'] as const).map((q) => [
      q,
      unlessRefilled(countedBy(pair(q), q), refills),
    ]),
  ) as Record<Exclude<CountingQuestion, 'rejected'>, Learned<boolean>>;
  return {
    tier: record.tier,
    org: record.org,
    windowMs: record.windowMs,
    headers,
    ...(record.dialects ? { dialects: dialectsOf(record, record.dialects) } : {}),
    read: {
      quotaClass: 'read',
      limit: commonLimit(reads),
      resetFormat: formatOf(reads, record.windowMs, clockOffsetMs),
      resetSteady,
      algorithm,
      phase: phaseOf(record, clockOffsetMs),
    },
    ingest: ingestProfile(pair('ingest') ?? null, algorithm, record.windowMs, clockOffsetMs),
    counts: {
      ...counts,
      rejected: undecided(
        'not observable in a short discovery: while a window is used up, a counted 429 changes nothing the server shows; the checks keep every 429 in their ledger',
      ),
    },
    readSharedAcrossRoutes: unlessRefilled(sharedAcrossRoutes(pair('other-route')), refills, true),
    classesIndependent: unlessRefilled(
      classesIndependent(pair('ingest'), record.windowMs, clockOffsetMs),
      refills,
      false,
    ),
    concurrency: CONCURRENCY_NOT_LEARNED,
    observations: record.all.length,
    durationMs: Math.round(record.durationMs),
  };
}

/**
 * On a refilling limiter, an answer read from a Remaining that did not fall is no answer: a token may
 * have come back between the reads. Only `proven` (the value a fall shows) stands.
 */
function unlessRefilled(answer: Learned<boolean>, refills: boolean, proven = true): Learned<boolean> {
  if (!refills || answer.value === null || answer.value === proven) return answer;
  return undecided(
    `${answer.how}; but quota comes back between reads on this server, so an unchanged Remaining proves nothing`,
    answer.evidence,
  );
}

const answered = (record: DiscoveryRecord): number => record.all.filter((o) => o.status !== null).length;

function readPath(record: DiscoveryRecord): string {
  return record.pairs[0]?.before.path ?? '/recruiter/jobs';
}

function headersLearned(reads: readonly Observation[]): Learned<boolean> {
  const withAll = reads.filter(
    (o) => o.rateLimit.limit.raw !== null && o.rateLimit.remaining.raw !== null && o.rateLimit.reset.raw !== null,
  );
  const withNone = reads.filter(
    (o) => o.rateLimit.limit.raw === null && o.rateLimit.remaining.raw === null && o.rateLimit.reset.raw === null,
  );
  if (reads.length === 0) return undecided('no read was answered');
  if (withAll.length === reads.length)
    return learned(true, `all ${reads.length} reads carried X-RateLimit-Limit, -Remaining and -Reset`, [reads[0]?.id]);
  if (withNone.length === reads.length)
    return learned(false, `none of ${reads.length} reads carried an X-RateLimit header`, [reads[0]?.id]);
  return learned(true, `${withAll.length} of ${reads.length} reads carried all three X-RateLimit headers`, [
    withNone[0]?.id ?? reads[0]?.id,
  ]);
}

function commonLimit(obs: readonly Observation[]): number | null {
  const values = new Set(obs.map((o) => o.rateLimit.limit.value).filter((v): v is number => v !== null));
  return values.size === 1 ? [...values][0]! : null;
}

function formatOf(obs: readonly Observation[], windowMs: number, clockOffsetMs: number): Learned<ResetFormat> {
  if (obs.length === 0) return undecided('no response to read X-RateLimit-Reset from');
  const tally = new Map<ResetFormat, Observation[]>();
  for (const o of obs) {
    const format = resetFormatOf(o, windowMs, clockOffsetMs);
    tally.set(format, [...(tally.get(format) ?? []), o]);
  }
  const [top, seen] = [...tally.entries()].sort((a, b) => b[1].length - a[1].length)[0]!;
  const example = seen[0]!;
  const raw = example.rateLimit.reset.raw;
  const others = [...tally.entries()].filter(([f]) => f !== top).map(([f, os]) => `${os.length} ${f}`);
  const mixed = others.length > 0 ? `; the others: ${others.join(', ')}` : '';
  const what: Record<ResetFormat, string> = {
    'epoch-seconds': `Reset ${raw} is a Unix epoch in seconds, within a window of the server's Date`,
    'epoch-millis': `Reset ${raw} is a Unix epoch in milliseconds`,
    'seconds-until': `Reset ${raw} counts seconds until the window resets`,
    absent: 'no X-RateLimit-Reset header',
    unreadable: `Reset '${raw}' is neither an epoch nor a count of seconds within a window of the server's clock`,
  };
  return learned(top, `${what[top]} (${seen.length} of ${obs.length} responses${mixed})`, [example.id]);
}

/** The status each counting question is about. */
const MEANT_STATUS: Partial<Record<PairQuestion, number>> = { 'not-found': 404, forbidden: 403, unauthenticated: 401 };

/** A request in question counted when the read after it shows two fewer Remaining than the read before it. */
function countedBy(p: CountingPair | undefined, question: PairQuestion): Learned<boolean> {
  if (!p) return undecided(question === 'forbidden' ? 'no key lacking scopes was available to get a 403' : 'not asked');
  const step = remainingStep(p);
  const what = `${p.probe.method} ${p.probe.path} → ${p.probe.status ?? p.probe.error?.code ?? 'no response'}`;
  // The answer in question must be that answer: a 403 that came back 200 says nothing of 403s.
  const meant = MEANT_STATUS[question];
  // A request lost on the way may or may not have reached the server: its pair shows nothing.
  if (p.probe.status === null)
    return undecided(`${what}: lost on the way, it may not have reached the server`, [p.probe.id]);
  if (meant !== undefined && p.probe.status !== meant)
    return undecided(`${what}, not the ${meant} in question`, [p.probe.id]);
  if (typeof step === 'string') return undecided(`${what}: ${step}`, [p.before.id, p.probe.id, p.after.id]);
  const ids = [p.before.id, p.probe.id, p.after.id];
  if (step === 2)
    return learned(
      true,
      `${what}; Remaining went ${p.before.rateLimit.remaining.value} → ${p.after.rateLimit.remaining.value} over it and one read: it counted`,
      ids,
    );
  if (step === 1)
    return learned(
      false,
      `${what}; Remaining went ${p.before.rateLimit.remaining.value} → ${p.after.rateLimit.remaining.value}: only the read counted`,
      ids,
    );
  return undecided(
    `${what}; Remaining moved by ${step} over it and one read: other traffic or a window boundary fell between`,
    ids,
  );
}

/** How far Remaining fell from the read before to the read after, or why that cannot be read. */
function remainingStep(p: CountingPair): number | string {
  const before = p.before.rateLimit.remaining.value;
  const after = p.after.rateLimit.remaining.value;
  if (!isAdmitted(p.before) || !isAdmitted(p.after)) return 'a read around it was not admitted';
  if (before === null || after === null) return 'no X-RateLimit-Remaining to compare';
  if (after > before) return `Remaining rose ${before} → ${after}: a window boundary fell between`;
  if (p.before.rateLimit.reset.raw !== null && p.after.rateLimit.reset.raw !== null && resetMoved(p.before, p.after)) {
    return `Reset went ${p.before.rateLimit.reset.raw} → ${p.after.rateLimit.reset.raw}: a window boundary may fall between`;
  }
  return before - after;
}

function sharedAcrossRoutes(p: CountingPair | undefined): Learned<boolean> {
  if (!p) return undecided('not asked');
  const ids = [p.before.id, p.probe.id, p.after.id];
  if (!isAdmitted(p.probe))
    return undecided(
      `${p.probe.method} ${p.probe.path} was not admitted (${p.probe.status ?? p.probe.error?.code}); cannot tell`,
      ids,
    );
  const step = remainingStep(p);
  if (typeof step === 'string') return undecided(step, ids);
  if (step === 2)
    return learned(true, `a read of ${p.probe.path} took one from the same Remaining as ${p.before.path}`, ids);
  if (step === 1) {
    const own = p.probe.rateLimit.remaining.value;
    return learned(
      false,
      `a read of ${p.probe.path} left ${p.before.path}'s Remaining untouched${own !== null ? ` and showed its own (${own})` : ''}: reads count per route`,
      ids,
    );
  }
  return undecided(`Remaining moved by ${step}: other traffic or a window boundary fell between`, ids);
}

function classesIndependent(p: CountingPair | undefined, windowMs: number, clockOffsetMs: number): Learned<boolean> {
  if (!p) return undecided('not asked');
  const ids = [p.before.id, p.probe.id, p.after.id];
  if (!isAdmitted(p.probe))
    return undecided(`the resume upload was not admitted (${p.probe.status ?? p.probe.error?.code})`, ids);
  const step = remainingStep(p);
  if (step === 2)
    return learned(false, 'a resume upload took one from the read Remaining: reads and ingest share one counter', ids);
  const phase = windowPhase(p, windowMs, clockOffsetMs);
  if (step === 1)
    return learned(true, `a resume upload left the read Remaining untouched: separate counters${phase}`, ids);
  return undecided(typeof step === 'string' ? step : `Remaining moved by ${step}`, ids);
}

/** Whether the upload's window ends where the reads' does, in words. */
function windowPhase(p: CountingPair, windowMs: number, clockOffsetMs: number): string {
  const format = resetFormatOf(p.probe, windowMs, clockOffsetMs);
  const ingestEnd = endEstimateOf(p.probe, format, clockOffsetMs);
  const readEnd = endEstimateOf(p.after, resetFormatOf(p.after, windowMs, clockOffsetMs), clockOffsetMs);
  if (!ingestEnd || !readEnd) return '';
  const apart = Math.abs((ingestEnd.earliest + ingestEnd.latest) / 2 - (readEnd.earliest + readEnd.latest) / 2);
  return apart > 1000
    ? `, and windows of their own (ends ${Math.round(apart / 100) / 10} s apart)`
    : ', windows ending together';
}

/**
 * The ingest class, from the one upload discovery sends between two reads. How its windows start is
 * taken from the reads only where that cannot mislead: reads on clock-aligned windows, and the upload
 * announcing the very end the reads announce (the same boundaries). Otherwise it stays open, and the
 * ingest checks are scheduled as for an unknown limiter.
 */
function ingestProfile(
  p: CountingPair | null,
  read: Learned<WindowAlgorithm>,
  windowMs: number,
  clockOffsetMs: number,
): ClassProfile {
  const quotaClass: QuotaClass = 'ingest';
  const probe = p?.probe ?? null;
  if (!p || !probe || probe.status === null) {
    return {
      quotaClass,
      limit: null,
      resetFormat: undecided('no resume upload was answered'),
      resetSteady: undecided('not probed'),
      algorithm: undecided('not probed'),
      phase: undecided('not probed'),
    };
  }
  return {
    quotaClass,
    limit: probe.rateLimit.limit.value,
    resetFormat: formatOf([probe], windowMs, clockOffsetMs),
    resetSteady: undecided('one upload cannot show it; taken as for reads', [probe.id]),
    algorithm: ingestAlgorithm(p, read),
    phase: undecided('one upload cannot show it', [probe.id]),
  };
}

function ingestAlgorithm(p: CountingPair, read: Learned<WindowAlgorithm>): Learned<WindowAlgorithm> {
  const [upload, after] = [p.probe.rateLimit.reset.raw, p.after.rateLimit.reset.raw];
  if (read.value !== 'fixed-aligned')
    return undecided(
      `one upload cannot show how ingest windows start; the reads' windows are ${read.value ?? 'unknown'}`,
      [p.probe.id],
    );
  if (upload === null || upload !== after)
    return undecided(
      `reads are on clock-aligned windows, but the upload's Reset (${upload ?? 'absent'}) is not the reads' (${after ?? 'absent'})`,
      [p.probe.id, p.after.id],
    );
  return learned(
    'fixed-aligned',
    `the upload announced the reads' own Reset ${upload}, and reads are on clock-aligned windows: the same boundaries`,
    [p.probe.id, p.after.id],
  );
}

/** A span a Reset that moves every second cannot hide in. */
const STEADY_SPAN_MS = 1000;

/**
 * Whether Reset holds still within a window, over every stretch of the discovery known to lie in one
 * window: the reads counting down to the 429, the refusals after it (refill and narrowing probes, all
 * before the announced end), and the reads after the expiry read. Held still is claimed only over
 * at least a second of them: a Reset that moves once a second could hide in less.
 */
function steadiness(record: DiscoveryRecord, readPathOf: string, placing: EndPlacing): Learned<boolean> {
  const on = (phases: readonly DiscoveryPhase[]) =>
    record.all.filter((o) => o.path === readPathOf && phases.some((p) => p === o.phase));
  const opened = record.expiry[0]?.sentAt ?? Infinity;
  const refusedIn = (phases: readonly DiscoveryPhase[], from: number, to: number) =>
    on(phases).filter((o) => o.status === TOO_MANY_REQUESTS && o.sentAt >= from && o.sentAt < to);
  // A refusal before an admitted read of the exhaustion lies in an earlier window (the window turned
  // between them, and the exhaustion read on): only the last window's refusals are one window.
  const lastAdmitted = Math.max(-Infinity, ...record.exhaustion.filter(isAdmitted).map((o) => o.sentAt));
  const stretches = [
    on(['counted', 'exhaust']),
    refusedIn(['exhaust', 'refill', 'narrow'], lastAdmitted, opened),
    on(['expiry', 'expiry-follow-up']),
    on(['expiry-again', 'expiry-again-follow-up']),
    refusedIn(['expiry-exhaust', 'narrow'], opened, Infinity),
  ];
  let comparedMs = 0;
  let compared = 0;
  let rounded: ResetMovement | null = null;
  for (const stretch of stretches) {
    const seen = resetMovement(stretch, placing);
    rounded ??= seen.rounded;
    if (seen.moved) {
      const { before: a, after: b } = seen.moved;
      const how =
        a.status === TOO_MANY_REQUESTS
          ? 'while the quota stayed used up (429 then 429)'
          : `while Remaining counted down ${a.rateLimit.remaining.value} → ${b.rateLimit.remaining.value}`;
      return learned(
        false,
        `Reset went ${a.rateLimit.reset.raw} → ${b.rateLimit.reset.raw} ${how}: it moves within a window`,
        [a.id, b.id],
      );
    }
    comparedMs += seen.comparedMs;
    compared += seen.compared;
  }
  if (rounded) {
    const { before: a, after: b } = rounded;
    return undecided(
      `Reset went ${a.rateLimit.reset.raw} → ${b.rateLimit.reset.raw} within a window, and never further: a second of rounding, or a Reset that moves each second, which these reads cannot tell apart`,
      [a.id, b.id],
    );
  }
  if (comparedMs < STEADY_SPAN_MS)
    return undecided(
      `Reset held still over ${compared} comparisons spanning only ${Math.round(comparedMs)} ms: too short to rule out one that moves each second`,
    );
  return learned(
    true,
    `Reset held still over ${compared} comparisons within windows, spanning ${Math.round(comparedMs)} ms`,
    [],
  );
}

/**
 * The used-up window's end on the server's clock, modulo the window length: where clock-aligned
 * boundaries fall. From our monotonic estimate through the 429's own send time and wall clock, and
 * the clock offset the run estimated from Date.
 */
function phaseOf(record: DiscoveryRecord, clockOffsetMs: number): Learned<WindowPhase> {
  const end = record.exhaustedEnd;
  const rejected = record.exhaustion.at(-1);
  if (!end || !rejected || rejected.status === null || isAdmitted(rejected))
    return undecided('no used-up window announced its end');
  const serverMs = (mono: number) => rejected.sentWall + (mono - rejected.sentAt) + clockOffsetMs;
  const mid = serverMs((end.earliest + end.latest) / 2);
  const W = record.windowMs;
  const ms = ((Math.round(mid) % W) + W) % W;
  const doubtMs = Math.ceil((end.latest - end.earliest) / 2);
  return learned(
    { ms, doubtMs, clockOffsetMs },
    `the used-up window ended ${ms} ms (±${doubtMs}) past a multiple of ${W / 1000} s on the server's clock (estimated ${clockOffsetMs} ms from ours)`,
    [rejected.id],
  );
}
