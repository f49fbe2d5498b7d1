/**
 * A CONCURRENCY-CAP measurement as the client would record it against a server at a distance, worked
 * out from a model of the path and the server instead of a network: each request's way there is
 * `upMs` plus its own stray, its way back `downMs` plus its own stray (each stray 0 to `strayMs`), and
 * the server decides on a request when it arrives (admit, refuse or queue: `server`), holds an upload
 * `parseMs` and a read `serverMs`, and frees its slot as its answer leaves. The verdict is never told
 * how the round trip splits; the tests sweep the split and the strays to show it needs not know.
 */
import type { Observation } from '../../src/measure/observation.ts';
import { heldUploadFigures } from '../../src/measure/network.ts';
import { extraSendAt, planHold } from '../../src/verdicts/support/held-timing.ts';
import { obs, type HeldMeasurement } from './observations.ts';

/** The requests of a measurement whose strays a test chooses. */
export type HeldRole = 'held' | 'last' | 'control' | 'extra';

export interface DistanceModel {
  readonly cap: number;
  /** The path's way there and back without strays, ms: the verdict knows neither, only their sum. */
  readonly upMs: number;
  readonly downMs: number;
  /** The most a way strays, ms; the timed reads show round trips that spread exactly this much. */
  readonly strayMs: number;
  /** Each request's stray on each way, a share of `strayMs` (0 to 1); default 0. */
  readonly stray?: (role: HeldRole, way: 'up' | 'down') => number;
  /** A read's time on the server after its decision, ms. */
  readonly serverMs: number;
  readonly parseMs: number;
  /** What the server does with a request beyond the cap: a correct cap refuses or queues it. */
  readonly server: 'refuses' | 'queues' | 'admits';
  /** Send times on the client's clock, ms: the first cap − 1 uploads at 0. */
  readonly controlAt: number;
  readonly lastAt: number;
  readonly extraAt: number;
}

/** A request's send, its way there and back, and what the server makes of it. */
interface Sent {
  readonly role: HeldRole;
  readonly sentAt: number;
  readonly serviceMs: number;
  readonly upMs: number;
  readonly downMs: number;
}

interface Served {
  readonly sent: Sent;
  readonly status: number;
  /** When the answer left the server (the slot freed). */
  readonly leftAt: number;
}

/** The round trips of the reads timed before anything is held: the fastest without strays, the slowest strayed on one way in full. */
export function timedReadTrips(model: DistanceModel): number[] {
  const path = model.upMs + model.downMs + model.serverMs;
  return [path, path + model.strayMs / 2, path + model.strayMs];
}

/** The measurement the client records (the timed reads, the held uploads, the control, the extra). */
export function measuredAtDistance(model: DistanceModel): HeldMeasurement {
  const way = (role: HeldRole, w: 'up' | 'down') => (model.stray?.(role, w) ?? 0) * model.strayMs;
  const sent = (role: HeldRole, sentAt: number, serviceMs: number): Sent => ({
    role,
    sentAt,
    serviceMs,
    upMs: model.upMs + way(role, 'up'),
    downMs: model.downMs + way(role, 'down'),
  });
  const requests = [
    ...Array.from({ length: model.cap - 1 }, () => sent('held', 0, model.parseMs)),
    sent('control', model.controlAt, model.serverMs),
    sent('last', model.lastAt, model.parseMs),
    sent('extra', model.extraAt, model.serverMs),
  ];
  const served = serve(model, requests);
  const tags = { check: 'CONCURRENCY-CAP', tier: 'starter', org: 'starter-a' } as const;
  const record = ({ sent: s, status, leftAt }: Served): Observation => {
    const upload = s.role === 'held' || s.role === 'last';
    return obs({
      ...tags,
      phase: upload ? 'hold' : s.role,
      ...(upload ? { method: 'POST', path: '/recruiter/jobs/vendor/resume-analysis' } : {}),
      sentAt: s.sentAt,
      latencyMs: leftAt + s.downMs - s.sentAt,
      status,
      limit: upload ? 10 : 60,
      remaining: 5,
    });
  };
  const roundTrips = timedReadTrips(model).map((latencyMs, i) =>
    obs({ ...tags, phase: 'round-trip', sentAt: -10_000 + i * 1000, latencyMs, limit: 60, remaining: 50 }),
  );
  const byRole = (role: HeldRole) => served.filter((s) => s.sent.role === role).map(record);
  return {
    roundTrips,
    held: [...byRole('held'), ...byRole('last')],
    control: byRole('control')[0]!,
    extra: byRole('extra')[0]!,
  };
}

/** The server's decisions, in the order the requests reach it; results in the order given. */
function serve(model: DistanceModel, requests: readonly Sent[]): Served[] {
  const admitted: { start: number; leftAt: number }[] = [];
  const inFlight = (t: number) => admitted.filter((a) => a.start <= t && a.leftAt > t).length;
  const results = new Map<Sent, Served>();
  const arrival = (s: Sent) => s.sentAt + s.upMs;
  for (const s of [...requests].sort((a, b) => arrival(a) - arrival(b))) {
    const at = arrival(s);
    let start = at;
    if (inFlight(at) >= model.cap && model.server === 'refuses') {
      results.set(s, { sent: s, status: 429, leftAt: at + model.serverMs });
      continue;
    }
    if (model.server === 'queues') {
      // Waits for the first moment a slot is free: one of the slots' ends.
      const ends = admitted.map((a) => a.leftAt).filter((t) => t > at);
      start = [at, ...ends.sort((a, b) => a - b)].find((t) => inFlight(t) < model.cap) ?? at;
    }
    admitted.push({ start, leftAt: start + s.serviceMs });
    results.set(s, { sent: s, status: 200, leftAt: start + s.serviceMs });
  }
  return requests.map((s) => results.get(s)!);
}

/** The model without its send times: what a measurement plans them from. */
export type DistancePath = Omit<DistanceModel, 'controlAt' | 'lastAt' | 'extraAt'>;

/**
 * The send times the task would choose on this path (tasks/concurrency.ts): its plan from the timed
 * reads' round trips and the fastest upload seen before (one with no stray), the control's answer as
 * the model gives it, `slotWaitMs` before the last upload, and the extra by the figures with the
 * control's round trip among them.
 */
export function plannedSends(
  path: DistancePath,
  slotWaitMs: number,
): Pick<DistanceModel, 'controlAt' | 'lastAt' | 'extraAt'> {
  const figures = heldUploadFigures(timedReadTrips({ ...path, controlAt: 0, lastAt: 0, extraAt: 0 }), 0)!;
  const plan = planHold(figures, path.upMs + path.parseMs + path.downMs, slotWaitMs);
  const controlAt = plan.controlAfterMs;
  const strayed = (way: 'up' | 'down') => (path.stray?.('control', way) ?? 0) * path.strayMs;
  const controlTrip = path.upMs + strayed('up') + path.serverMs + path.downMs + strayed('down');
  const lastAt = controlAt + controlTrip + slotWaitMs;
  const asSent = heldUploadFigures([...timedReadTrips({ ...path, controlAt, lastAt, extraAt: 0 }), controlTrip], 0)!;
  return { controlAt, lastAt, extraAt: extraSendAt(plan, asSent, { heldAt: 0, lastAt }) };
}
