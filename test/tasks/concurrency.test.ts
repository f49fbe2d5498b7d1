/**
 * CONCURRENCY-CAP against the reference target, 2 s windows and 200 ms uploads: decided from the
 * run's own timings whatever the cap does. Refused at once (the clean target), held until a slot
 * frees (`cap-queues`, a conformant variant), or not capped at all (`no-concurrency-cap`).
 */
import { describe, expect, it } from 'vitest';
import { concurrency } from '../../src/tasks/concurrency.ts';
import { runTask } from '../../src/suite/task.ts';
import { learnedConcurrency, type ConcurrencyCapData } from '../../src/verdicts/concurrency-cap.ts';
import type { TargetOptions } from '../../src/reference-server/options.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import { loadTestContext } from '../helpers/suite-context.ts';
import { endpointById } from '../../src/contract/lookup.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { requestFor } from '../../src/measure/requests.ts';
import type { Observation } from '../../src/measure/observation.ts';

async function capResult(target: TargetOptions) {
  const { context, org } = await loadTestContext(
    'starter',
    { windowMs: 2000, parseMs: 200, ...target },
    { fleet: false, connectionsPerEdge: 8 },
  );
  const [result] = await runTask(concurrency, context, {
    tier: 'starter',
    orgs: [org],
    scenario: defineScenario({ tier: 'starter' }),
    checks: null,
  });
  return result!;
}

const shown = (r: { verdict: string; actual: string; notes: readonly string[] }) => ({
  verdict: r.verdict,
  actual: r.actual,
  notes: r.notes,
});

describe('the concurrency task', () => {
  it('passes the clean target: the extra refused with 429 while the cap was in service', async () => {
    const result = await capResult({});
    expect(shown(result)).toMatchObject({ verdict: 'pass' });
    const data = result.data as ConcurrencyCapData;
    expect([data.outcome, data.extraStatus, data.controlStatus]).toEqual(['refused', 429, 200]);
    expect(learnedConcurrency(result).value).toEqual({ kind: 'refuses', status: 429 });
  });

  it('passes cap-queues: the extra held until a slot freed, the control answered at once', async () => {
    const result = await capResult({ variants: ['cap-queues'] });
    expect(shown(result)).toMatchObject({ verdict: 'pass' });
    const data = result.data as ConcurrencyCapData;
    expect([data.outcome, data.extraStatus, data.controlStatus]).toEqual(['queued', 200, 200]);
    expect(result.reasons).toEqual([{ code: 'cap-queues', assumed: 429 }]);
    expect(learnedConcurrency(result).value).toEqual({ kind: 'queues' });
  });

  it('fails no-concurrency-cap: the extra admitted while the cap was in service, decided', async () => {
    const result = await capResult({ faults: ['no-concurrency-cap'] });
    expect(shown(result)).toMatchObject({ verdict: 'fail' });
    const data = result.data as ConcurrencyCapData;
    expect([data.outcome, data.extraStatus]).toEqual(['admitted', 200]);
    expect(learnedConcurrency(result).value).toEqual({ kind: 'no-cap' });
  });
});

describe('the concurrency task, its read quota spent first', () => {
  it('is inconclusive, holding nothing, when the reads that time the round trip are refused', async () => {
    const { context, org } = await loadTestContext('starter', { windowMs: 3000, parseMs: 200 }, { fleet: false });
    const seen: Observation[] = [];
    context.recorder!.onObservation((o) => seen.push(o));
    const jobs = requestFor(endpointById(recruitingApi, 'jobs-list'), org.primary.key);
    const prober = context.prober;
    const send = prober.send.bind(prober);
    let timed = 0;
    // The window's 60 reads spent by another client just before the task times its round trip (five
    // reads), and again before it times them once more in the next window, as it does once after a 429.
    prober.send = async (edge, request, tags) => {
      if (tags.phase === 'round-trip' && timed++ % 5 === 0) {
        const spend = { check: 'PROFILE', phase: 'exhaust', tier: org.tier, org: org.label } as const;
        await Promise.all(Array.from({ length: 60 }, () => send(edge, jobs, spend)));
      }
      return send(edge, request, tags);
    };
    const [result] = await runTask(concurrency, context, {
      tier: 'starter',
      orgs: [org],
      scenario: defineScenario({ tier: 'starter' }),
      checks: null,
    });
    const refused = result!.reasons.find((r) => r.code === 'refused-before-held')!;
    expect(refused).toMatchObject({ code: 'refused-before-held', status: 429, error: null });
    expect(result!.verdict).toBe('inconclusive');
    const read = seen.find((o) => o.id === refused.request)!;
    expect([read.status, read.method, read.phase]).toEqual([429, 'GET', 'round-trip']);
    // Nothing held once the reads were refused.
    const firstRefused = Math.min(...seen.filter((o) => o.phase === 'round-trip').map((o) => o.id));
    expect(seen.filter((o) => o.phase === 'hold' && o.id > firstRefused)).toEqual([]);
    expect(timed).toBe(10);
  });
});
