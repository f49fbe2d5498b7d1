/**
 * CONCURRENCY-CAP: hold the cap's worth of slow uploads in flight, then send one more (a fast read).
 * The verdict only counts if the held requests were still in flight when the extra one was answered,
 * and an admitted extra fails the check only once the server showed every held upload counted.
 * A measurement the server's answers cannot decide is tried again while the window's ingest quota
 * has room for another cap of uploads.
 */
import { endpointById } from '../contract/lookup.ts';
import { concurrencyCapVerdict } from '../verdicts/concurrency-cap.ts';
import type { Finding } from '../catalogue/types.ts';
import { sleep } from '../measure/window-sync.ts';
import type { ProbeRequest } from '../measure/http-prober.ts';
import type { SuiteContext } from './context.ts';
import type { OrgHandle } from './handles.ts';
import { requestFor } from './requests.ts';
import type { Observation } from '../measure/observation.ts';
import type { ConcurrencyPhase } from '../measure/tags.ts';
import { describe } from '../verdicts/support/finding.ts';
import { inFreshWindow } from './fresh-window.ts';
import { defineTask, inconclusiveFinding } from './task.ts';

/** How often, and how many times, to ask the server whether the held uploads were all counted. */
const WITNESS_INTERVAL_MS = 10;
const WITNESS_ATTEMPTS = 100;
/** Without a witness (its answer carried no Remaining), how long the held uploads get to arrive. */
const UNWITNESSED_SETTLE_MS = 50;
/** Measurements per task at most (each spends a cap of ingest units). */
const MAX_ATTEMPTS = 3;

export const concurrency = defineTask({
  kind: 'concurrency',
  decides: { 'CONCURRENCY-CAP': '' },
  consumes: 'ingest',
  orgs: 1,
  placement: 'lane',
  describe: "the cap's worth of slow uploads held in flight, then one more request",
  run: (context, task) => {
    const org = task.orgs[0]!;
    return inFreshWindow(context, task, 'ingest', async () => {
      const tier = context.contract.tiers[org.tier];
      const attempts = Math.max(1, Math.min(MAX_ATTEMPTS, Math.floor(tier.ingest.value / tier.concurrency.value)));
      let finding: Finding | null = null;
      for (let attempt = 1; attempt <= attempts && !context.signal.aborted; attempt++) {
        const measured = await measureOnce(context, org);
        finding = measured.finding;
        if (finding.verdict !== 'inconclusive') break;
        // The window had no room for the held uploads: the next measurement needs a window of its own.
        if (measured.noRoom && attempt < attempts) {
          const next = await context.windows.fresh([org], 'ingest');
          if (!next.ok) break;
        }
      }
      return { 'CONCURRENCY-CAP': finding ?? inconclusiveFinding('a measurement', 'interrupted') };
    });
  },
});

async function measureOnce(context: SuiteContext, org: OrgHandle): Promise<{ finding: Finding; noRoom: boolean }> {
  const figure = context.contract.tiers[org.tier].concurrency;
  const edge = context.prober.edges[0]!;
  const tags = { check: 'CONCURRENCY-CAP', tier: org.tier, org: org.label } as const;
  const send = (request: ProbeRequest, phase: ConcurrencyPhase) => context.prober.send(edge, request, { ...tags, phase });
  // Open the connections first (unauthenticated HEADs touch no organization's cap or quota),
  // so the held requests leave at once instead of queueing behind TCP handshakes.
  await Promise.all(Array.from({ length: figure.value + 1 }, () => send({ method: 'HEAD', path: '/recruiter/bootstrap', key: null }, 'warm-up')));
  // The witness: an empty bulk upload is refused (400) without counting, and its ingest Remaining
  // shows how many uploads the window has counted.
  const bulk = endpointById(context.contract, 'resume-analysis-bulk');
  const witness = { method: bulk.method, path: bulk.path, key: org.primary.key, headers: { 'content-type': 'application/json' }, body: '{"resumes":[]}' };
  const counted = (o: Observation) => {
    const { limit, remaining } = o.rateLimit;
    return limit.value === null || remaining.value === null ? null : limit.value - remaining.value;
  };
  const first = await send(witness, 'witness');
  const baseline = counted(first);
  // Uploads refused for quota would pass for cap rejections: measure only with room for all of them.
  const room = first.rateLimit.remaining.value;
  if (room !== null && room < figure.value) {
    return {
      noRoom: true,
      finding: {
        verdict: 'inconclusive',
        expected: `room in the window's ingest quota for the ${figure.value} held uploads`,
        actual: `the window had room for only ${room} (${describe(first)}, Remaining ${room})`,
        evidence: [first.id],
        notes: ['quota 429s would look like cap 429s: nothing was held'],
      },
    };
  }
  let firstHeldDone = false;
  const upload = requestFor(endpointById(context.contract, 'resume-analysis'), org.primary.key);
  const held = Array.from({ length: figure.value }, () =>
    send(upload, 'hold').then((o) => {
      firstHeldDone = true;
      return o;
    }),
  );
  // Before sending the extra, wait for the server's word that every held upload was admitted.
  let heldCounted: Observation | null = null;
  if (baseline === null) await sleep(UNWITNESSED_SETTLE_MS, context.signal);
  for (let poll = 0; baseline !== null && poll < WITNESS_ATTEMPTS && heldCounted === null && !firstHeldDone && !context.signal.aborted; poll++) {
    const w = await send(witness, 'witness');
    const now = counted(w);
    if (now !== null && now >= baseline + figure.value) heldCounted = w;
    else await sleep(WITNESS_INTERVAL_MS, context.signal);
  }
  // The extra is a fast read: the cap counts every request of the organization in flight, and a
  // fast answer lands while the slow uploads are still held, whichever way the server decides.
  const extra = await send(requestFor(endpointById(context.contract, 'jobs-list'), org.primary.key), 'extra');
  return { noRoom: false, finding: concurrencyCapVerdict({ held: await Promise.all(held), extra, figure, heldCounted }) };
}
