/**
 * The embedded target's session over HTTPS at a distance: it hands on the CA the target made
 * (TargetSession.ca), and the prober built from the session trusts it. Plain HTTP hands on none.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { ObservationRecorder } from '../../src/measure/recorder.ts';
import { openTargetSession, sessionProber } from '../../src/run/target-session.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';

/**
 * The target's thread compiles the sources (tsx) and, with TLS, loads the X.509 library: on a loaded
 * two-core machine with a cold cache that has taken over half a minute.
 */
const THREAD_START_TIMEOUT_MS = 90_000;

/** The embedded target of a short run, with the shape `tls`, `latencyMs`, `jitterMs` given. */
async function session(shape: { tls: boolean; latencyMs: number; jitterMs: number }) {
  const run = shortRun(tempReportsDir());
  if (run.target.kind !== 'embedded') throw new Error('shortRun makes an embedded target');
  const opened = await openTargetSession({ ...run, target: { ...run.target, edges: 1, ...shape } }, {});
  onTestFinished(() => opened.close());
  return opened;
}

describe('the embedded target session', () => {
  it(
    "over HTTPS at a distance: hands on the target's CA, and its prober's requests are answered",
    async () => {
      const s = await session({ tls: true, latencyMs: 20, jitterMs: 10 });
      expect(s.ca).toMatch(/^-----BEGIN CERTIFICATE-----/);
      expect(s.edges.map((e) => new URL(e.url).protocol)).toEqual(['https:']);
      const { io } = captureIo();
      const prober = sessionProber(s, io, {
        recorder: new ObservationRecorder(null),
        timeoutMs: 5000,
        connectionsPerEdge: 1,
      });
      onTestFinished(() => prober.close());
      const tags = { check: 'WINDOW-SYNC', phase: 'window-sync', tier: null, org: null } as const;
      const observation = await prober.send(
        s.edges[0]!,
        { method: 'HEAD', path: '/recruiter/bootstrap', key: null },
        tags,
      );
      expect([observation.status, observation.error]).toEqual([401, null]);
    },
    THREAD_START_TIMEOUT_MS,
  );

  it('over plain HTTP hands on no CA', async () => {
    const s = await session({ tls: false, latencyMs: 0, jitterMs: 0 });
    expect(s.ca).toBeNull();
    expect(new URL(s.edges[0]!.url).protocol).toBe('http:');
  });
});
