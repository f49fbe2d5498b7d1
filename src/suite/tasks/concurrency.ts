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
import { inFreshWindow } from './fresh-window.ts';

/** Time for the held requests to reach the server before the extra one is sent. */
const SETTLE_MS = 50;

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
        const held = Array.from({ length: figure.value }, () =>
          context.prober.send(edge, requestFor(endpoint, org.primary.key), { ...tags, phase: 'hold' }),
        );
        await sleep(SETTLE_MS, context.signal);
        // The extra is a fast read: the cap counts every request of the organization in flight, and a
        // fast answer lands while the slow uploads are still held, whichever way the server decides.
        const extra = await context.prober.send(edge, requestFor(endpointById(context.contract, 'jobs-list'), org.primary.key), { ...tags, phase: 'extra' });
        const finding = concurrencyCapVerdict({ held: await Promise.all(held), extra, figure });
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
