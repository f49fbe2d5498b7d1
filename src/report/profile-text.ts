/**
 * A limiter profile in words: the one vocabulary the terminal summary, `tiergate profile` and the
 * HTML report share. `profileFindings` lists every answer with its evidence (the report's rows);
 * `formatProfile` packs them into a compact block of lines, with the reasons for what stayed unknown
 * on demand. Pure: profile in, text out.
 */
import type { QuotaClass } from '../contract/types.ts';
import type { AnnouncedPolicyFigures } from '../measure/observation.ts';
import type {
  ClassProfile,
  ConcurrencyAnswer,
  CountingQuestion,
  DialectAgreement,
  DialectProfile,
  Learned,
  LimiterProfile,
  ResetFormat,
  WindowAlgorithm,
} from '../profile/types.ts';
import { COUNTING_QUESTIONS } from '../profile/types.ts';
import { formatMs } from './charts/svg.ts';
import type { Paint } from './palette.ts';

/** What an undecided answer reads as, everywhere. */
export const UNKNOWN = 'unknown';

const ALGORITHM_TEXT: Readonly<Record<WindowAlgorithm, string>> = {
  'fixed-aligned': 'fixed, aligned to the clock',
  'fixed-first-request': 'fixed, start at the first counted request',
  refilling: 'refilling: quota comes back during the window',
  unknown: UNKNOWN,
};

/** The answer each counting question is about, as the server would show it. */
const COUNTED_ANSWER: Readonly<Record<CountingQuestion, string>> = {
  head: 'HEAD',
  'not-found': '404',
  forbidden: '403',
  unauthenticated: '401',
  rejected: '429',
};

/** One answer of the profile, worded: a row of the report, a reason line of the text block. */
export interface ProfileFinding {
  /** Stable key, e.g. `read.algorithm` or `counts.head`. */
  readonly key: string;
  /** What is asked, e.g. `read windows` or `HEAD counted`. */
  readonly label: string;
  /** The answer, or `unknown`. */
  readonly value: string;
  readonly decided: boolean;
  /** One sentence: what was seen, or what was missing. */
  readonly how: string;
  readonly evidence: readonly number[];
}

const yesNo = (value: boolean | null): string => (value === null ? UNKNOWN : value ? 'yes' : 'no');
const resetText = (value: ResetFormat | null): string => value ?? UNKNOWN;
const algorithmText = (value: WindowAlgorithm | null): string => ALGORITHM_TEXT[value ?? 'unknown'];
const limitText = (limit: number | null): string => (limit === null ? 'none' : String(limit));

/** One request beyond the cap, with the cap held: what the server did with it. */
function concurrencyText(answer: ConcurrencyAnswer | null): string {
  if (answer === null) return UNKNOWN;
  switch (answer.kind) {
    case 'refuses':
      return `refused with ${answer.status}`;
    case 'queues':
      return 'queued until a request in flight finished';
    case 'no-cap':
      return 'admitted: no cap';
  }
}
/** `unknown` is an answer the discovery gave, but it decides nothing. */
const isDecided = (learned: Learned<unknown>): boolean => learned.value !== null && learned.value !== 'unknown';

function finding<T>(key: string, label: string, learned: Learned<T>, value: (v: T | null) => string): ProfileFinding {
  return {
    key,
    label,
    value: isDecided(learned) ? value(learned.value) : UNKNOWN,
    decided: isDecided(learned),
    how: learned.how,
    evidence: learned.evidence,
  };
}

function classFindings(c: ClassProfile): ProfileFinding[] {
  const name: QuotaClass = c.quotaClass;
  return [
    {
      key: `${name}.limit`,
      label: `${name} Limit`,
      value: limitText(c.limit),
      decided: true,
      how:
        c.limit === null
          ? `no ${name} response announced X-RateLimit-Limit`
          : `announced in X-RateLimit-Limit on ${name} responses`,
      evidence: [],
    },
    finding(`${name}.resetFormat`, `${name} Reset`, c.resetFormat, resetText),
    finding(`${name}.resetSteady`, `${name} Reset within a window`, c.resetSteady, (v) =>
      v === null ? UNKNOWN : v ? 'holds still' : 'moves',
    ),
    finding(`${name}.algorithm`, `${name} windows`, c.algorithm, algorithmText),
  ];
}

const AGREEMENT_TEXT: Readonly<Record<DialectAgreement, string>> = {
  agrees: 'yes: the same limit, remaining and reset',
  differs: 'no: they tell another state',
  'not-both': 'only one dialect sent',
};

/** `"read" 60 per 60 s`, `5 concurrent-requests`: a policy as announced. */
function policyText(p: AnnouncedPolicyFigures): string {
  const name = p.name === null ? '' : `"${p.name}" `;
  const unit = p.unit === 'requests' ? '' : ` ${p.unit}`;
  return `${name}${p.quota}${unit}${p.windowS === null ? '' : ` per ${p.windowS} s`}`;
}

/** The dialects sent (with the fields, in how), the policies announced, and whether X-RateLimit-* agrees with another. */
function dialectFindings(d: DialectProfile): ProfileFinding[] {
  const sent = finding('dialects.sent', 'header dialects', d.sent, (v) =>
    v === null ? UNKNOWN : v.length === 0 ? 'none' : v.join(', '),
  );
  return [
    { ...sent, how: d.fields.length === 0 ? sent.how : `${sent.how}: ${d.fields.join(', ')}` },
    {
      key: 'dialects.policies',
      label: 'policies announced',
      value: d.policies.length === 0 ? 'none' : d.policies.map(policyText).join(' · '),
      decided: true,
      how: d.policies.length === 0 ? 'no answer carried RateLimit-Policy' : 'announced in RateLimit-Policy',
      evidence: [],
    },
    finding('dialects.agreement', 'dialects agree', d.agreement, (v) => (v === null ? UNKNOWN : AGREEMENT_TEXT[v])),
  ];
}

/** Every answer of the profile, in the order the text block and the report show them. */
export function profileFindings(profile: LimiterProfile): ProfileFinding[] {
  return [
    finding('headers', 'rate-limit headers', profile.headers, (v) => (v ? 'present' : 'absent')),
    ...(profile.dialects ? dialectFindings(profile.dialects) : []),
    ...classFindings(profile.read),
    ...classFindings(profile.ingest),
    ...COUNTING_QUESTIONS.map((q) => finding(`counts.${q}`, `${COUNTED_ANSWER[q]} counted`, profile.counts[q], yesNo)),
    finding('readSharedAcrossRoutes', 'read endpoints', profile.readSharedAcrossRoutes, (v) =>
      v ? 'one shared counter' : 'a counter per route',
    ),
    finding('classesIndependent', 'read vs ingest', profile.classesIndependent, (v) =>
      v ? 'independent counters and windows' : 'not independent: they share a counter or a window',
    ),
    finding('concurrency', 'beyond the cap', profile.concurrency, concurrencyText),
  ];
}

/** `starter, learned on starter-a in 4.2 s, 23 requests`. */
export function profileSubtitle(profile: LimiterProfile): string {
  const requests = `${profile.observations} request${profile.observations === 1 ? '' : 's'}`;
  return `${profile.tier}, learned on ${profile.org} in ${formatMs(profile.durationMs)}, ${requests}`;
}

export interface FormatProfileOptions {
  /** Add, for each answer left unknown, the reason it stayed open. Default false. */
  readonly reasons?: boolean;
  /** Bold title, `unknown` in yellow; default plain. */
  readonly paint?: Paint;
}

/** Width of the label column. */
const LABEL = 20;
const GAP = '   ';

/** Under the headers row: the dialects sent; the policies where any were announced; agreement where two were sent. */
function dialectRows(
  dialects: DialectProfile | undefined,
  valueOf: (key: string) => string,
  row: (label: string, value: string) => string,
): string[] {
  if (!dialects) return [];
  return [
    row('header dialects', valueOf('dialects.sent')),
    ...(dialects.policies.length > 0 ? [row('policies', valueOf('dialects.policies'))] : []),
    ...(dialects.agreement.value === 'not-both' ? [] : [row('dialects agree', valueOf('dialects.agreement'))]),
  ];
}

/**
 * The profile as a compact block of lines (no final newline):
 *
 *     How this server limits (starter, learned on starter-a in 4.2 s, 23 requests)
 *       rate-limit headers  present
 *       header dialects     x-ratelimit, ietf-draft-6
 *       policies            60 per 60 s
 *       dialects agree      yes: the same limit, remaining and reset
 *       read                Limit 60   Reset epoch-seconds   windows fixed, start at the first counted request
 *       ingest              Limit 10   Reset epoch-seconds   windows fixed, aligned to the clock
 *       counts              HEAD yes · 404 no · 403 no · 401 no · 429 unknown
 *       read endpoints      one shared counter
 *       read vs ingest      independent counters and windows
 *       beyond the cap      refused with 429
 *
 * A class whose Reset moves within a window reads `Reset epoch-seconds (moves within a window)`.
 */
export function formatProfile(profile: LimiterProfile, options: FormatProfileOptions = {}): string {
  const paint: Paint = options.paint ?? ((_style, text) => text);
  // Values are padded as plain text first, so columns line up with or without colour.
  const mark = (value: string): string => value.replace(/\bunknown\b/g, paint('yellow', UNKNOWN));
  const row = (label: string, value: string): string => `  ${label.padEnd(LABEL)}${mark(value)}`;
  const findings = profileFindings(profile);
  const valueOf = (key: string): string => findings.find((f) => f.key === key)?.value ?? UNKNOWN;

  const classes = [profile.read, profile.ingest].map((c) => ({
    name: c.quotaClass,
    limit: `Limit ${valueOf(`${c.quotaClass}.limit`)}`,
    // A Reset that holds still (or is not known to move) needs no words; one that moves does.
    reset: `Reset ${valueOf(`${c.quotaClass}.resetFormat`)}${c.resetSteady.value === false ? ' (moves within a window)' : ''}`,
    windows: `windows ${valueOf(`${c.quotaClass}.algorithm`)}`,
  }));
  const limitWidth = Math.max(...classes.map((c) => c.limit.length));
  const resetWidth = Math.max(...classes.map((c) => c.reset.length));
  const counts = COUNTING_QUESTIONS.map((q) => `${COUNTED_ANSWER[q]} ${valueOf(`counts.${q}`)}`).join(' · ');

  const lines = [
    paint('bold', `How this server limits (${profileSubtitle(profile)})`),
    row('rate-limit headers', valueOf('headers')),
    ...dialectRows(profile.dialects, valueOf, row),
    ...classes.map((c) =>
      row(c.name, `${c.limit.padEnd(limitWidth)}${GAP}${c.reset.padEnd(resetWidth)}${GAP}${c.windows}`),
    ),
    row('counts', counts),
    row('read endpoints', valueOf('readSharedAcrossRoutes')),
    row('read vs ingest', valueOf('classesIndependent')),
    row('beyond the cap', valueOf('concurrency')),
  ];
  const open = findings.filter((f) => !f.decided);
  if (options.reasons && open.length > 0) {
    lines.push(`  ${paint('yellow', 'unknown, and why')}`);
    const width = Math.max(...open.map((f) => f.label.length)) + 2;
    for (const f of open) lines.push(`    ${f.label.padEnd(width)}${f.how || 'no reason given'}`);
  }
  return lines.join('\n');
}
