/**
 * Reasons that belong to how a measurement went, whatever the check: windows, lost answers, fit,
 * budgets, interruption.
 */
import { formatDurationMs } from '../../util/duration.ts';
import { reason } from './define.ts';

export const MEASUREMENT_REASONS = {
  'no-fresh-window': reason<{ detail: string }>()({
    verdicts: ['inconclusive'],
    text: ({ detail }) => `no fresh quota window to start in: ${detail}`,
    means: 'No window could be had that the server showed fresh (its Remaining) and long enough (its Reset).',
    causes: [
      "another client is spending the organization's quota",
      'the declared window is longer than the server announces',
    ],
    change: [
      'give tiergate organizations no one else uses (config `orgs`)',
      'check the window: `tiergate profile` shows how the server limits',
    ],
  }),
  'reads-do-not-fit-window': reason<{
    roundTrips: number;
    roundTripMs: number;
    needMs: number;
    windowMs: number;
    usablePercent: number;
  }>()({
    verdicts: ['inconclusive'],
    text: ({ roundTrips, roundTripMs, needMs, windowMs, usablePercent }) =>
      `${roundTrips} round trips one after another at ${formatDurationMs(roundTripMs)} = ${formatDurationMs(needMs)}, over ${usablePercent}% of the ${formatDurationMs(windowMs)} window`,
    means:
      'The reads the check needs cannot all fit one quota window at the round trip measured on this run; none were sent.',
    causes: ['a distant deployment (long round trips)', 'a small concurrency cap (few reads released together)'],
    change: [
      'a longer window (`--window`, config `window`)',
      'a nearer vantage point',
      'a larger declared cap (config `orgs[].limits.concurrency`)',
    ],
  }),
  'uploads-do-not-fit-window': reason<{
    uploadTimes: number;
    batches: number;
    findsStart: boolean;
    uploadMs: number;
    needMs: number;
    windowMs: number;
    usablePercent: number;
    maxUploadMs: number;
  }>()({
    verdicts: ['inconclusive'],
    text: (f) => {
      const start = f.findsStart ? ", one to find the window's start" : ', which opens the window';
      const parts = `the first${f.findsStart ? '' : start}, ${f.batches} ${f.batches === 1 ? 'batch' : 'batches'} under the cap${f.findsStart ? start : ''}`;
      return `${f.uploadTimes} upload times one after another (${parts}) = ${formatDurationMs(f.needMs)} at ${formatDurationMs(f.uploadMs)} an upload, over ${f.usablePercent}% of the ${formatDurationMs(f.windowMs)} window (it fits up to ${formatDurationMs(f.maxUploadMs)} an upload)`;
    },
    means:
      'The uploads the check needs cannot all fit one quota window at the upload time measured on this run (a real parser takes seconds); none were sent.',
    causes: ['a slow resume parser', 'a small concurrency cap (few uploads at once)', 'a short window'],
    change: [
      'a longer window (`--window`, config `window`)',
      'a larger declared cap (config `orgs[].limits.concurrency`)',
      '`--dry-run` states, per ingest task, the longest upload time at which it fits',
    ],
  }),
  interrupted: reason<{ wouldHaveBeen: string }>()({
    verdicts: ['inconclusive'],
    text: ({ wouldHaveBeen }) =>
      `the run was interrupted while this check ran${wouldHaveBeen === '' ? '' : `; it would otherwise have been ${wouldHaveBeen}`}`,
    means:
      'Ctrl-C (or a signal) stopped the run while this check was measuring; what it found is reported, never as a verdict.',
    causes: ['the run was stopped by hand or by the CI job'],
    change: ['let the run finish; `--dry-run` says how long it will take'],
  }),
  'task-stopped': reason<{ task: string; error: string }>()({
    verdicts: ['inconclusive'],
    text: ({ task, error }) => `task ${task} stopped: ${error}`,
    means: 'The task that measures this check stopped before deciding it.',
    causes: ['an error in a hook or the network, named in the reason'],
    change: ['read the warning the run printed for this task, fix its cause and run again'],
  }),
  'task-undecided': reason<{ kind: string }>()({
    verdicts: ['inconclusive'],
    text: ({ kind }) => `the ${kind} task ended without deciding it`,
    means: 'The task that measures this check returned no decision for it: a tiergate defect, never a pass.',
    causes: ['a task that does not decide every check it declares'],
    change: ['report it with the run folder (`tiergate verify` shows what was judged)'],
  }),
  'never-refused': reason<{ sent: number }>()({
    verdicts: ['inconclusive'],
    text: ({ sent }) => `no request was rejected among the ${sent} sent`,
    means: 'The check judges what follows a 429, and the series that should end in one never got one.',
    causes: ['a quota larger than the one declared or announced', 'another check of the series failed first'],
    change: ['read QUOTA-READ of the same tier: it says where the 429 fell, or that none did'],
  }),
  'no-room-to-measure': reason<{ room: number; needed: number }>()({
    verdicts: ['inconclusive'],
    text: ({ room, needed }) =>
      `the window's ingest quota has room for ${room}, not the ${needed} uploads a measurement spends`,
    means: "CONCURRENCY-CAP holds the cap's worth of uploads at once; the window's ingest quota had too little left.",
    causes: ['an ingest quota smaller than the concurrency cap plus the reads', 'other uploads in the same window'],
    change: ['declare the figures the deployment enforces (config `orgs[].limits`)', 'a longer window (`--window`)'],
  }),
  'refused-before-held': reason<{ request: number; status: number | null; error: string | null }>()({
    verdicts: ['inconclusive'],
    text: ({ request, status, error }) =>
      status === null
        ? `reads got no answer before anything was held: ${error ?? 'no response'} on read #${request}`
        : `reads were refused before anything was held: ${status} on read #${request}`,
    means:
      "The reads that time the round trip and test the cap were refused or lost first: a read's 429 for its quota would pass for the cap's.",
    causes: ['the read quota was spent by another check or client', 'a lossy network'],
    change: ['give the concurrency task an organization of its own (config `orgs`)', 'check the network path'],
  }),
  'uploads-slow-now': reason<{ fastestMs: number }>()({
    verdicts: ['inconclusive'],
    text: ({ fastestMs }) =>
      `the fastest recent upload took ${fastestMs} ms, which would fit: the uploads were slow at the moment`,
    means:
      "Uploads were slower than usual when the check was due (the run's own other tasks, or the server's load): measured again a window later.",
    causes: ['load on the machine or the deployment at that moment'],
    change: ['nothing if a later window decided it; else fewer tiers at once (`--tier`) or a longer window'],
  }),
  'measured-again': reason<{ first: readonly string[]; spoiled: readonly string[]; ownSpoiled: boolean }>()({
    verdicts: ['pass', 'fail', 'inconclusive'],
    text: ({ first, spoiled, ownSpoiled }) =>
      ownSpoiled
        ? `measured again in the next window: the first measurement was spoiled (${first.join(', ')})`
        : `measured again in the next window: the first left it open (${first.join(', ')}) with ${spoiled.join(', ')} spoiled`,
    means:
      'A window boundary or the network spoiled the first measurement of this check, or of a check of the same series, so the result is the one a fresh window gave.',
    causes: [
      'a window rolled over or a request got no answer during the first measurement',
      'another check of the same series spoiled, leaving this one open',
    ],
    change: [
      'nothing: the result stands on the second measurement',
      'if it recurs, a nearer vantage point or a quieter moment',
    ],
  }),
} as const;
