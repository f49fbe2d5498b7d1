/**
 * runDoctor against the reference target (two edges, on a clock the test holds still): on the config
 * `tiergate init` writes, with every key provisioned as it says, every finding is ok; the requests
 * are few and spend a handful of reads, no ingest; the server clock's offset is measured from Date.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from '../../src/config/load.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { SCOPE_NAMES } from '../../src/contract/types.ts';
import type { RateLimitDialectName } from '../../src/contract/rate-limit-dialects.ts';
import { externalTarget } from '../../src/run/options.ts';
import { formatDoctor, runDoctor } from '../../src/run/doctor.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { CONFIG_FILE, initDeployment, variableOf } from '../helpers/deployment.ts';
import { CLOCK_START, ManualClock } from '../helpers/manual-clock.ts';
import { call, startTestTarget, useTarget } from '../helpers/target.ts';

const target = useTarget({ edges: 2, clock: new ManualClock() });

describe('runDoctor', () => {
  it('finds nothing wrong with a correct config, in a few requests that spend a handful of reads', async () => {
    const t = target();
    const deployment = await initDeployment(t);
    const config = await loadConfig(CONFIG_FILE, deployment.dir);
    const { io } = captureIo({ env: deployment.env });
    const before = Date.now();
    const outcome = await runDoctor(externalTarget(config, io.env, null), io);
    const after = Date.now();

    expect(outcome.findings.filter((f) => !f.ok)).toEqual([]);
    expect(outcome.exitCode).toBe(0);
    expect(outcome.findings.map((f) => f.input.split(' ')[0])).toEqual([
      'target.edges.0',
      'target.edges.1',
      ...['orgs.0', 'orgs.1'].flatMap((org) =>
        ['primary', 'secondary', 'unscoped'].map((role) => `${org}.keys.${role}`),
      ),
      'headers',
      'server',
    ]);
    // Every keyed answer came from the first edge, in §8's names, as the config (declaring none) expects.
    expect(outcome.findings.find((f) => f.headers)?.headers).toEqual({
      edge: 'edge-0',
      declared: 'x-ratelimit',
      sent: ['x-ratelimit'],
      answers: 2 * (7 + 1 + 1),
      disagreeing: 0,
    });
    // One per edge; per organization: seven for the primary key, one each for the others.
    expect(outcome.requests).toBe(2 + 2 * (7 + 1 + 1));

    // The target's clock stands at CLOCK_START: the offset is that from ours, within its bound.
    const clock = outcome.clock!;
    expect(clock.offsetMs).toBeGreaterThanOrEqual(CLOCK_START - after);
    expect(clock.offsetMs).toBeLessThanOrEqual(CLOCK_START + 1000 - before);
    expect(clock.uncertaintyMs).toBeLessThanOrEqual(1000);

    // A read each for the primary key's two scoped GETs and for the second key; the writes were refused unread.
    const key = deployment.env[variableOf(deployment, 'starter-a', 'primary')]!;
    const reads = await call(t.edge(), '/recruiter/bootstrap', { method: 'HEAD', key });
    expect(reads.limit - reads.remaining).toBe(3);
    const ingest = await call(t.edge(), '/recruiter/jobs/vendor/resume-analysis', {
      method: 'POST',
      key,
      headers: { 'content-type': 'text/plain' },
      body: '',
    });
    expect(ingest.remaining).toBe(recruitingApi.tiers.starter.ingest.value);
  });

  it("compares a declared read figure with the X-RateLimit-Limit the organization's reads carry: equal is ok, another is a problem naming the field and the fix", async () => {
    const t = target();
    const env: Record<string, string> = {};
    const orgs = [];
    // Both organizations have 10000 reads on the target; the config declares 10000 for one, 12000 for the other.
    for (const [name, declared] of [
      ['big-a', 10_000],
      ['big-b', 12_000],
    ] as const) {
      const org = await t.admin.createOrg('enterprise', name, { read: 10_000 });
      const variable = `XH_${name.replace('-', '_').toUpperCase()}_KEY`;
      env[variable] = (await t.admin.createKey(org.id, SCOPE_NAMES, 'test')).key;
      orgs.push({ name, tier: 'enterprise', keys: { primary: { env: variable } }, limits: { read: declared } });
    }
    const config = parseConfig({ target: { edges: t.target.edges }, orgs }, 'declared.json');
    const { io } = captureIo({ env });
    const outcome = await runDoctor(externalTarget(config, io.env, null), io);

    const findings = outcome.findings.filter((f) => f.input.startsWith('orgs.') && f.input.includes('.limits.'));
    expect(findings).toEqual([
      { ok: true, input: 'orgs.0.limits.read 10000', detail: "equals the X-RateLimit-Limit of big-a's 1 read" },
      {
        ok: false,
        input: 'orgs.1.limits.read 12000',
        detail:
          "big-b's reads were answered with X-RateLimit-Limit 10000: HDR-LIMIT and QUOTA-READ hold it to 12000; write the read figure of big-b's contract here, or have the deployment enforce 12000",
      },
    ]);
    expect(outcome.exitCode).toBe(1);
    expect(formatDoctor(outcome)).toContain(
      "problem  orgs.1.limits.read 12000: big-b's reads were answered with X-RateLimit-Limit 10000",
    );
  });

  describe('the header dialect the deployment sends against the one the config declares', () => {
    /** The doctor on the config `tiergate init` writes, for a target speaking `speaks`, the config declaring `declared`. */
    async function doctorOn(speaks: RateLimitDialectName, declared?: RateLimitDialectName) {
      const t = await startTestTarget({ edges: 1, clock: new ManualClock(), headers: speaks });
      const deployment = await initDeployment(t);
      const config = await loadConfig(CONFIG_FILE, deployment.dir);
      const { io } = captureIo({ env: deployment.env });
      const outcome = await runDoctor(
        externalTarget(config, io.env, null),
        io,
        declared === undefined ? {} : { headers: declared },
      );
      const dialect = outcome.findings.filter((f) => f.input.startsWith('headers'));
      expect(dialect).toHaveLength(1);
      return { outcome, finding: dialect[0]! };
    }

    it('a deployment speaking the IETF fields, the config declaring nothing: a problem, and the only one', async () => {
      const { outcome, finding } = await doctorOn('ietf');
      expect(finding).toMatchObject({
        ok: false,
        input: 'headers x-ratelimit',
        headers: { edge: 'edge-0', declared: 'x-ratelimit', sent: ['ietf'], answers: 18, disagreeing: 0 },
      });
      expect(outcome.findings.filter((f) => !f.ok)).toEqual([finding]);
      expect(outcome.exitCode).toBe(1);
      expect(formatDoctor(outcome)).toContain('add "headers": "ietf" to the config');
    });

    it("the same deployment, the config declaring headers: 'ietf': ok", async () => {
      const { outcome, finding } = await doctorOn('ietf', 'ietf');
      expect(finding).toMatchObject({ ok: true, headers: { declared: 'ietf', sent: ['ietf'] } });
      expect(outcome.findings.filter((f) => !f.ok)).toEqual([]);
    });

    it("§8's names, the config declaring ietf: a problem naming what it sends", async () => {
      const { finding } = await doctorOn('x-ratelimit', 'ietf');
      expect(finding).toMatchObject({ ok: false, headers: { declared: 'ietf', sent: ['x-ratelimit'] } });
    });

    it('draft 6, the config declaring draft 7: a problem (the two share RateLimit-Policy, not the rest)', async () => {
      const { finding } = await doctorOn('ietf-draft-6', 'ietf-draft-7');
      expect(finding).toMatchObject({ ok: false, headers: { declared: 'ietf-draft-7', sent: ['ietf-draft-6'] } });
    });
  });
});
