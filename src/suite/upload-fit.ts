/**
 * Whether an ingest task's uploads fit one quota window at the deployment's upload time (a real resume
 * parser takes seconds, not milliseconds). The task's time is its first upload, then its rounds (the
 * batches under the cap, one upload time each), and, unless the server's windows start with the first
 * request, one upload time more before its window's start is pinned (the opener before it may have
 * been a slow upload in the window before). A task that cannot fit is not run: the plan says so
 * before any quota is spent, with these figures, and its checks are reported inconclusive with them.
 */
import { formatDurationMs } from '../util/duration.ts';
import { because, reasonText, type ReasonFigures } from '../catalogue/reasons/index.ts';

/**
 * The share of a window the uploads may take: the rest is for timers and an upload slower than the
 * median (the boundary's doubt is the upload time counted to find the start).
 */
const USABLE_SHARE = 0.95;

export interface UploadFit {
  readonly fits: boolean;
  /** Upload times one after another: the first, the rounds, and one for the window's start unless the first opens it. */
  readonly uploadTimes: number;
  /** Whether one of them finds the window's start. */
  readonly pinned: boolean;
  readonly needMs: number;
  /** The longest an upload may take for the task to fit, ms. */
  readonly maxUploadMs: number;
}

/**
 * `opensWithFirst`: the server's windows start at the first request (learned), so the first upload
 * opens the check's window and none is spent finding where it began.
 */
export function uploadFit(rounds: number, uploadMs: number, windowMs: number, opensWithFirst = false): UploadFit {
  const uploadTimes = rounds + (opensWithFirst ? 1 : 2);
  const budget = windowMs * USABLE_SHARE;
  return {
    fits: uploadTimes * uploadMs <= budget,
    uploadTimes,
    pinned: !opensWithFirst,
    needMs: uploadTimes * uploadMs,
    maxUploadMs: Math.floor(budget / uploadTimes),
  };
}

/** Why an ingest task that does not fit was not sent: its figures, for reason `uploads-do-not-fit-window`. */
export function uploadsUnfitFigures(
  fit: UploadFit,
  uploadMs: number,
  windowMs: number,
): ReasonFigures<'uploads-do-not-fit-window'> {
  return {
    uploadTimes: fit.uploadTimes,
    batches: fit.uploadTimes - (fit.pinned ? 2 : 1),
    findsStart: fit.pinned,
    uploadMs,
    needMs: fit.needMs,
    windowMs,
    usablePercent: Math.round(USABLE_SHARE * 100),
    maxUploadMs: fit.maxUploadMs,
  };
}

/** "8 upload times one after another (…) = 16s at 2s an upload, over 95% of the 3s window (…)" (one line). */
export function uploadFitText(fit: UploadFit, uploadMs: number, windowMs: number): string {
  if (!fit.fits) return reasonText(because('uploads-do-not-fit-window', uploadsUnfitFigures(fit, uploadMs, windowMs)));
  const rounds = fit.uploadTimes - (fit.pinned ? 2 : 1);
  const start = fit.pinned ? ", one to find the window's start" : ', which opens the window';
  const times = `${fit.uploadTimes} upload times one after another (the first${fit.pinned ? '' : start}, ${rounds} ${rounds === 1 ? 'batch' : 'batches'} under the cap${fit.pinned ? start : ''})`;
  return `${times} = ${formatDurationMs(fit.needMs)} at ${formatDurationMs(uploadMs)} an upload, within the ${formatDurationMs(windowMs)} window`;
}
