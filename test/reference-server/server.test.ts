/** startTarget's lifecycle: ports, start failures with a stable code, and a prompt close. */
import { describe, expect, it } from 'vitest';
import { TiergateError } from '../../src/util/errors.ts';
import { FAULT_NAMES, faultCatalogue, startTarget as startFromIndex } from '../../src/index.ts';
import { AdminClient } from '../../src/reference-server/admin-client.ts';
import { startTarget } from '../../src/reference-server/server.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { call, orgWithKey, startTestTarget } from '../helpers/target.ts';

const code = (error: unknown) => (error instanceof TiergateError ? error.code : String(error));

describe('startTarget', () => {
  it('is exported from the package with the fault catalogue', () => {
    expect(startFromIndex).toBe(startTarget);
    expect(faultCatalogue.map((f) => f.name)).toEqual([...FAULT_NAMES]);
  });

  it('puts edge i on port + i when a port is given', async () => {
    const probe = await startTestTarget({ edges: 1 });
    const free = Number(new URL(probe.edge()).port);
    await probe.target.close();
    // The freed port and the next ones are very likely free; if not, that is a start failure, not a wrong port.
    const t = await startTarget({ port: free, edges: 2 }).catch((e: unknown) => e);
    if (t instanceof TiergateError) {
      expect(t.code).toBe('TG_TARGET_START');
      return;
    }
    const running = t as Awaited<ReturnType<typeof startTarget>>;
    try {
      expect(running.edges).toEqual([`http://127.0.0.1:${free}`, `http://127.0.0.1:${free + 1}`]);
    } finally {
      await running.close();
    }
  });

  it('fails with TG_TARGET_START and one clear line when a port is taken', async () => {
    const first = await startTestTarget();
    const port = Number(new URL(first.edge()).port);
    const error = await startTarget({ port, edges: 1 }).catch((e: unknown) => e);
    expect(code(error)).toBe('TG_TARGET_START');
    expect((error as Error).message).toBe(
      `cannot start the target's edge-0 on 127.0.0.1:${port}: the port is already in use (pick another, or 0 for a free one)`,
    );
    const adminTaken = await startTarget({ adminPort: port }).catch((e: unknown) => e);
    expect(code(adminTaken)).toBe('TG_TARGET_START');
    expect((adminTaken as Error).message).toContain('admin API');
  });

  it('refuses non-loopback hosts and invalid options before opening any socket', async () => {
    expect(code(await startTarget({ host: '0.0.0.0' }).catch((e: unknown) => e))).toBe('TG_NOT_LOOPBACK');
    const invalid = await startTarget({
      edges: 0,
      windowMs: 1500,
      faults: ['nope' as never],
      variants: ['sliding-log' as never],
    }).catch((e: unknown) => e);
    expect(code(invalid)).toBe('TG_CONFIG');
    expect((invalid as Error).message).toMatch(
      /edges: .*windowMs: .*faults: unknown "nope"; variants: unknown "sliding-log"/,
    );
  });

  it('close() ends keep-alive sockets and aborts simulated parse work at once', async () => {
    const clock = new ManualClock();
    const t = await startTarget({ edges: 2, parseMs: 60_000, clock });
    const admin = new AdminClient(t.adminUrl);
    const org = await orgWithKey(admin, 'starter', ['resume.parse']);
    const warm = await call(t.edges[1]!, '/recruiter/bootstrap', { key: org.key });
    expect(warm.headers['connection']).toBe('keep-alive');
    const slow = call(t.edges[0]!, '/recruiter/jobs/vendor/resume-analysis', {
      method: 'POST',
      key: org.key,
      headers: { 'content-type': 'text/plain' },
      body: 'Jane Doe',
    }).catch((e: unknown) => e);
    // The upload is admitted and parsing: it waits out its 60 s on the clock, which never moves here.
    await clock.untilPending(1);
    await t.close();
    // Closing aborted the parse (the clock holds no wait) and dropped the connection.
    expect(clock.pending).toBe(0);
    expect(await slow).toBeInstanceOf(Error);
    await expect(call(t.edges[0]!, '/recruiter/jobs')).rejects.toThrow();
    await t.close();
  });
});
