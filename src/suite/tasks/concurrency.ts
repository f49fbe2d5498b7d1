/**
 * CONCURRENCY-CAP: hold the cap's worth of slow uploads in flight, then send one more (a fast read).
 * The verdict only counts if the held requests were still in flight when the extra one was answered.
 */
import { endpointById } from '../../contract/lookup.ts';
import { checkResult } from '../../checks/result.ts';
import { concurrencyCapVerdict } from '../../checks/concurrency-cap.ts';
import { sleep } from '../../drivers/window-sync.ts';
import type { OrgHandle, Task } from '../context.ts';
import { requestFor } from '../requests.ts';
import type { Observation } from '../../observe/observation.ts';
import { inFreshWindow } from './fresh-window.ts';

/** How often, and how many times, to ask the server whether the held uploads were all counted. */
const WITNESS_INTERVAL_MS = 10;
const WITNESS_ATTEMPTS = 100;
/** Without a witness (its answer carried no Remaining), how long the held uploads get to arrive. */
const UNWITNESSED_SETTLE_MS = 50;

export function concurrencyTask(org: OrgHandle): Task {
  const name = `concurrency ${org.label}`;
  return {
    name,
    tier: org.tier,
    org: org.label,
    consumes: 'ingest',
    run: (context) =>
      inFreshWindow(context, org, { name, checks: [{ id: 'CONCURRENCY-CAP' }] }, async () => {
        const figure = context.contract.tiers[org.tier].concurrency;
        const endpoint = endpointById(context.contract, 'resume-analysis');
        const edge = context.prober.edges[0]!;
        const tags = { check: 'CONCURRENCY-CAP', tier: org.tier, org: org.label } as const;
        const startedWall = context.io.clock.now();
        const started = context.prober.now();
        // Open the connections first (unauthenticated HEADs touch no organization's cap or quota),
        // so the held requests leave at once instead of queueing behind TCP handshakes.
        await Promise.all(
          Array.from({ length: figure.value + 1 }, () =>
            context.prober.send(edge, { method: 'HEAD', path: '/recruiter/bootstrap', key: null }, { ...tags, phase: 'warm-up' }),
          ),
        );
        let firstHeldDone = false;
        const held = Array.from({ length: figure.value }, () =>
          context.prober.send(edge, requestFor(endpoint, org.primary.key), { ...tags, phase: 'hold' }).then((o) => {
            firstHeldDone = true;
            return o;
          }),
        );
        // Before sending the extra, wait for the server's word that every held upload was admitted:
        // an empty bulk upload is refused (400) without counting, and its ingest Remaining shows how
        // many uploads the window has counted. Without that word an admitted extra proves nothing.
        const bulk = endpointById(context.contract, 'resume-analysis-bulk');
        const witness = { method: bulk.method, path: bulk.path, key: org.primary.key, headers: { 'content-type': 'application/json' }, body: '{"resumes":[]}' };
        let heldCounted: Observation | null = null;
        for (let attempt = 0; attempt < WITNESS_ATTEMPTS && heldCounted === null && !firstHeldDone && !context.signal.aborted; attempt++) {
          const w = await context.prober.send(edge, witness, { ...tags, phase: 'witness' });
          const { limit, remaining } = w.rateLimit;
          if (limit.value === null || remaining.value === null) {
            // No usable witness: give the held uploads a moment to arrive; an admitted extra then proves nothing.
            await sleep(UNWITNESSED_SETTLE_MS, context.signal);
            break;
          }
          if (limit.value - remaining.value >= figure.value) heldCounted = w;
          else await sleep(WITNESS_INTERVAL_MS, context.signal);
        }
        // The extra is a fast read: the cap counts every request of the organization in flight, and a
        // fast answer lands while the slow uploads are still held, whichever way the server decides.
        const extra = await context.prober.send(edge, requestFor(endpointById(context.contract, 'jobs-list'), org.primary.key), { ...tags, phase: 'extra' });
        const finding = concurrencyCapVerdict({ held: await Promise.all(held), extra, figure, heldCounted });
        return [
          checkResult('CONCURRENCY-CAP', finding, {
            tier: org.tier,
            org: org.label,
            startedWall,
            durationMs: context.prober.now() - started,
          }),
        ];
      }),
  };
}
