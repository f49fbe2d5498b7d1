/**
 * Whether a quota check's window held what it should (QUOTA-READ, QUOTA-INGEST; README "How it
 * measures"): a window the check was taken to open really was fresh, and nothing was admitted after
 * the 429 while it surely lasted (no lucky pass). Pure.
 */
import { isAdmitted, type Observation } from '../../measure/observation.ts';
import { countOf } from './finding.ts';
import type { Figure, QuotaClass } from '../../contract/types.ts';
import { because, reasonText, type Reason } from '../../catalogue/reasons/index.ts';
import { notInOneWindow, serverDateSeconds, windowEndOf, type WindowIntegrity } from './window-integrity.ts';
import { windowSafeEnd, type WindowContext } from '../../measure/window.ts';
import { isQuotaRefusal, type ReleasedTogether } from './released-together.ts';

export interface QuotaExactInput {
  readonly figure: Figure;
  readonly quotaClass: QuotaClass;
  readonly variant: 'sequential' | 'burst';
  readonly window: WindowContext;
  /** Units each request carries (resumes per bulk upload); 1 when absent. */
  readonly unitsPerRequest?: number;
  /**
   * Requests sent after the series (sequential variants): another route of the class right after the
   * 429, and reads spread over the rest of the window. Admitted while the window is surely still
   * open, they show a quota that refills during the window, or is counted per route: no lucky pass.
   */
  readonly later?: readonly Observation[];
  /** Which of `later` read another route of the class (the watch's), where one did. */
  readonly otherRoute?: Observation | null;
  /**
   * Sequential series whose bulk went together (suite/series-shape.ts): the parts released together.
   * Among them a refusal with quota left is a cap's and counted nothing; the rest went one at a time.
   */
  readonly together?: readonly ReleasedTogether[];
}

/**
 * Why a count is judged against an exact figure (`figure.atLeast` false) rather than the Limit the
 * server announced: the figure is declared in the config, or the announcement differs from the
 * published one. Null where the published figure is what the server announced too (or announced none).
 */
export function exactLimitBasis(figure: Figure, announced: number | null): Reason | null {
  if (figure.declared) return because('limit-declared-in-config', { limit: figure.value, announced });
  if (announced !== null && announced !== figure.value)
    return because('announced-limit-off-published', { announced, published: figure.value });
  return null;
}

export interface Judged {
  readonly verdict: 'pass' | 'fail' | 'inconclusive';
  readonly expected: string;
  readonly actual: string;
  readonly evidence: readonly (number | undefined)[];
  readonly notes: readonly string[];
  /** Why it is not a plain pass: codes and figures. */
  readonly reasons: readonly Reason[];
}

/**
 * The ledger entries that counted on this check's own counter. One admitted on the check's own route
 * counted there (counted-requests). A sync poll the server counted (its own Remaining fell) may sit on
 * another route's counter (per-route limiters): the series' highest admitted Remaining shows how many
 * of those the check's counter had spent before it. (Not the same-route ones: a Remaining that does
 * not count down would drop them too.)
 */
export function spentBefore(
  obs: readonly Observation[],
  prior: readonly Observation[],
  limit: number | null,
): readonly Observation[] {
  const first = obs[0];
  const sameRoute = prior.filter(
    (o) => first !== undefined && o.method === first.method && o.path === first.path && isAdmitted(o),
  );
  const elsewhere = prior.filter((o) => !sameRoute.includes(o));
  if (elsewhere.length === 0 || limit === null) return prior;
  const shown = obs
    .filter(isAdmitted)
    .map((o) => o.rateLimit.remaining.value)
    .filter((r): r is number => r !== null);
  if (shown.length === 0) return prior;
  const spent = limit - 1 - Math.max(...shown) - sameRoute.length;
  return spent >= 0 && spent <= elsewhere.length ? [...sameRoute, ...elsewhere.slice(0, spent)] : prior;
}

/**
 * A window the harness took to open with the check (it waited out every earlier one) must show it:
 * the highest Remaining admitted is Limit less the first request's units (a bulk upload's resumes) and
 * the ledger. Lower, and the window was not fresh (the server's window outlasts the one configured,
 * say): nothing here can be judged.
 */
export function freshness(
  obs: readonly Observation[],
  limit: number | null,
  spent: number,
  window: WindowContext,
  units = 1,
): WindowIntegrity | null {
  if (!window.opensAtFirstRequest || limit === null) return null;
  const shown = obs
    .filter(isAdmitted)
    .map((o) => o.rateLimit.remaining.value)
    .filter((r): r is number => r !== null);
  if (shown.length === 0) return null;
  const highest = Math.max(...shown);
  if (highest >= limit - units - spent) return null;
  return notInOneWindow(
    because('window-not-fresh', { highestRemaining: highest, freshRemaining: limit - units - spent }),
  );
}

/**
 * Whether an admitted request fell in the window after the one `rejected` was refused in, by the
 * server's own word: a fresh window (Remaining Limit less one) that ends after it, decided no sooner
 * than a second before the end `rejected` announced (Date is floored to the second). A window placed
 * by timing can end sooner than placed (a server keeping window starts to whole seconds); a quota
 * given back mid-window cannot pass for this, its Date lying before the announced end.
 */
function nextWindowOf(rejected: Observation, windowSeconds: number): (o: Observation) => boolean {
  const end = windowEndOf(rejected, windowSeconds);
  return (o) => {
    const own = windowEndOf(o, windowSeconds);
    const date = serverDateSeconds(o);
    const { limit, remaining } = o.rateLimit;
    return (
      end !== null &&
      own !== null &&
      date !== null &&
      own > end &&
      date >= end - 1 &&
      limit.value !== null &&
      remaining.value === limit.value - 1
    );
  };
}

/**
 * No lucky pass: a request admitted after the series' first 429 while the window is surely still open
 * (answered before its safe end) means the server gave quota back inside the window, or counts
 * another route apart. Such an admission fails whatever the verdict was: a pass or an inconclusive
 * takes its reason as its actual, a fail adds it to its own. Without one, a pass notes the watch.
 */
export function refillCheck(judged: Judged, obs: readonly Observation[], input: QuotaExactInput): Judged {
  const later = input.later ?? [];
  const rejected = obs.find(isQuotaRefusal(input.together ?? []));
  if (later.length === 0 || !rejected) return judged;
  const safeEnd = windowSafeEnd(input.window, obs[0]);
  const start = obs[0]!.sentAt;
  const next = nextWindowOf(rejected, input.window.lengthMs / 1000);
  const admittedInside = later.find((o) => isAdmitted(o) && (o.headersAt ?? o.doneAt) < safeEnd && !next(o));
  const watched = `${countOf(later.length, 'request')} after the 429, up to ${Math.round((Math.max(...later.map((o) => o.sentAt)) - start) / 100) / 10} s into the window (sure to last ${Math.round((safeEnd - start) / 100) / 10} s)`;
  if (!admittedInside) {
    return judged.verdict === 'pass'
      ? { ...judged, notes: [...judged.notes, `watched the rest of the window: ${watched}, none admitted`] }
      : judged;
  }
  const route = `${admittedInside.method} ${admittedInside.path}`;
  const sureToLastS = Math.round((safeEnd - start) / 100) / 10;
  // The watch's read of another route of the class; the rest repeat the check's own request.
  const refill =
    admittedInside.id === input.otherRoute?.id
      ? because('quota-per-route', {
          admittedRoute: route,
          admittedId: admittedInside.id,
          refusedRoute: `${rejected.method} ${rejected.path}`,
          refusedId: rejected.id,
        })
      : because('quota-refills-in-window', {
          route,
          admittedId: admittedInside.id,
          intoS: Math.round((admittedInside.sentAt - start) / 10) / 100,
          refusedId: rejected.id,
          sureToLastS,
        });
  const actual = reasonText(refill);
  return {
    verdict: 'fail',
    expected: `${judged.expected}; nothing more admitted until the window ends`,
    actual: judged.verdict === 'fail' ? `${judged.actual}; ${actual}` : actual,
    evidence: [...judged.evidence, rejected.id, admittedInside.id],
    // A fail keeps its reasons; of an open one's, only what stays true of the series (requests of unknown fate).
    reasons: [...judged.reasons.filter((r) => judged.verdict === 'fail' || r.code === 'outcome-unknown'), refill],
    notes: [...judged.notes, `watched: ${watched}`],
  };
}
