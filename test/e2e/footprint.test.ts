/**
 * A run leaves no trace it did not declare (docs/deployment.md, "What a run sends, writes and keeps"),
 * on a reference target running in-process as a deployment, through `tiergate run --config`'s library
 * call. Before the run, each organization gets a job of its own holding a unique marker (created
 * through the API, as a customer would) and a candidate named with it (through the admin API): the
 * run changes neither, and the marker is nowhere in the
 * run folder or the terminal. With `writes: own` every job the run created is archived, its webhook
 * subscription goes to the config's cleanup hook, and what it wrote is what its observations show; with `writes: none` nothing is created or changed (the
 * target's own view, `GET /admin/orgs/:id/data`) and the checks that need an upload say so.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import type { CheckId } from '../../src/catalogue/types.ts';
import { parseConfig } from '../../src/config/load.ts';
import { SCOPE_NAMES } from '../../src/contract/types.ts';
import { runSuite } from '../../src/run/run.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { notPassed } from '../helpers/explained.ts';
import { configRun } from '../helpers/run-options.ts';
import { useTarget, type TestTarget } from '../helpers/target.ts';
import { keptToAnnouncement } from '../../src/report/footprint.ts';
import { verifyRun } from '../../src/run/verify.ts';
import { fileText, filesUnder, runObservations } from '../helpers/run-files.ts';

const target = useTarget({ edges: 1, windowMs: 2000, parseMs: 20 });
const CHECKS = ['SCOPE-ENFORCED', 'QUOTA-READ', 'QUOTA-INGEST'] as const satisfies readonly CheckId[];

let made = 0;

/** Two Starter organizations, each with three keys, a job of its own titled with `marker` and a candidate named with it. */
async function customerOrgs(t: TestTarget, marker: string) {
  const env: Record<string, string> = {};
  const orgs = [];
  const ids: string[] = [];
  const candidates: string[] = [];
  for (const name of ['starter-a', 'starter-b']) {
    const org = await t.admin.createOrg('starter', `${name}-${++made}`);
    ids.push(org.id);
    const variable = (role: string) => `XH_${name.replace('-', '_').toUpperCase()}_${role}`;
    for (const [role, scopes] of [
      ['KEY', SCOPE_NAMES],
      ['KEY_2', SCOPE_NAMES],
      ['KEY_NOSCOPE', []],
    ] as const) {
      env[variable(role)] = (await t.admin.createKey(org.id, scopes, 'test')).key;
    }
    const created = await request(`${t.edge()}/recruiter/jobs/create`, {
      method: 'POST',
      headers: { 'x-api-key': env[variable('KEY')]!, 'content-type': 'application/json' },
      body: JSON.stringify({ title: `Staff Engineer ${marker}`, stages: ['screen'] }),
    });
    expect(created.statusCode).toBe(201);
    await created.body.dump();
    // A customer's candidate (transcripts, scorecards) named with the marker: the run never reads it.
    candidates.push((await t.admin.createCandidate(org.id, `Ada Marker ${marker}`)).id);
    orgs.push({
      name,
      tier: 'starter',
      keys: {
        primary: { env: variable('KEY') },
        secondary: { env: variable('KEY_2') },
        unscoped: { env: variable('KEY_NOSCOPE') },
      },
    });
  }
  return { env, orgs, ids, candidates };
}

async function runWith(writes: 'own' | 'none', extra: Record<string, unknown> = {}) {
  const t = target();
  const marker = `MARKER-${randomBytes(6).toString('hex')}`;
  const { env, orgs, ids, candidates } = await customerOrgs(t, marker);
  const before = await Promise.all(ids.map((id) => t.admin.orgData(id)));
  const config = parseConfig(
    { target: { edges: t.target.edges }, window: '2s', timeout: '5s', orgs, writes, ...extra },
    'footprint test config',
  );
  const { io, stdout, stderr } = captureIo({ env });
  const outcome = await runSuite(
    configRun(config, env, { scenarios: [defineScenario({ tier: 'starter', orgs: 2 })], checks: CHECKS }),
    io,
  );
  const after = await Promise.all(ids.map((id) => t.admin.orgData(id)));
  const runDir = outcome.runDir!;
  const observations = runObservations<{
    method: string;
    path: string;
    status: number | null;
    org: string | null;
    resumes?: number;
  }>(runDir);
  return {
    marker,
    candidates,
    before,
    after,
    results: outcome.results!,
    runDir,
    terminal: stdout() + stderr(),
    observations,
  };
}

/** The organization's own jobs and subscriptions, before the run: none of them may change. */
const customerJobs = (data: { jobs: readonly { id: string }[] }, ids: ReadonlySet<string>) =>
  data.jobs.filter((j) => ids.has(j.id));

describe('what a run writes to a deployment, and keeps of it', () => {
  it('writes: own: changes nothing it did not create, archives the jobs it created, keeps no customer data, and reports what it wrote as its observations show', async () => {
    // The cleanup hook removes what the spec has no call for (here it notes what it was given).
    const removed = join(mkdtempSync(join(tmpdir(), 'tiergate-cleanup-')), 'removed.txt');
    const run = await runWith('own', {
      cleanup: {
        webhook: `printf '%s %s %s\\n' "$TIERGATE_ORG" "$TIERGATE_WEBHOOK_URL" "$TIERGATE_WEBHOOK_ID" >> '${removed}'`,
      },
    });
    expect(notPassed(run.results.checks)).toEqual([]);
    const created = run.before.flatMap((before, i) => {
      const ids = new Set(before.jobs.map((j) => j.id));
      expect(customerJobs(run.after[i]!, ids)).toEqual(before.jobs);
      expect(before.candidates).toHaveLength(1);
      expect(run.after[i]!.candidates).toEqual(before.candidates);
      // Never even read: no request named it (its read answer would have been kept as shape only).
      expect(run.observations.filter((o) => run.candidates.some((id) => o.path.includes(id)))).toEqual([]);
      return run.after[i]!.jobs.filter((j) => !ids.has(j.id));
    });
    // The job the scope check created (and updated) is named by the run, and archived.
    expect(created.map((j) => ({ title: j.title, status: j.status }))).toEqual([
      { title: `tiergate ${run.results.runId} (updated)`, status: 'archived' },
    ]);
    const footprint = run.results.footprint!;
    expect(footprint.writes).toBe('own');
    expect(footprint.created.filter((c) => c.kind === 'job').every((c) => c.cleanedUp)).toBe(true);
    const webhooks = footprint.created.filter((c) => c.kind === 'webhook');
    expect(webhooks.map((c) => c.cleanedUp)).toEqual([true]);
    expect(readFileSync(removed, 'utf8')).toBe(
      `${webhooks[0]!.org} https://example.invalid/tiergate/${run.results.runId} ${webhooks[0]!.id}\n`,
    );
    expect(webhooks[0]!.id).toMatch(/.+/);
    // What it reports having written is what its observations show.
    const writes = run.observations.filter((o) => o.method !== 'GET' && o.method !== 'HEAD');
    expect(footprint.written.reduce((n, r) => n + r.sent, 0)).toBe(writes.length);
    expect(footprint.written.reduce((n, r) => n + r.admitted, 0)).toBe(
      writes.filter((o) => o.status !== null && o.status >= 200 && o.status < 300).length,
    );
    // What the plan announced, beside what was done: exact figures met exactly, bounds kept.
    expect(footprint.announced.filter((r) => !keptToAnnouncement(r))).toEqual([]);
    const scoped = footprint.announced.find((r) => r.kind === 'jobs-created')!.org;
    expect(
      footprint.announced
        .filter((r) => r.org === scoped && r.bound === 'exact')
        .map((r) => [r.kind, r.planned, r.done]),
    ).toEqual([
      ['jobs-created', 1, 1],
      ['jobs-changed', 2, 2],
      ['webhooks', 1, 1],
    ]);
    // Resumes done are the resumes the admitted uploads carried, organization by organization.
    for (const row of footprint.announced.filter((r) => r.kind === 'resumes')) {
      const carried = run.observations
        .filter(
          (o) => o.org === row.org && o.resumes !== undefined && o.status !== null && o.status >= 200 && o.status < 300,
        )
        .reduce((n, o) => n + o.resumes!, 0);
      expect({ org: row.org, done: row.done }).toEqual({ org: row.org, done: carried });
    }
    expect(footprint.announced.some((r) => r.kind === 'resumes' && r.bound === 'at-most' && r.done > 0)).toBe(true);
    const archive = footprint.written.find((r) => r.endpoint === 'PUT /recruiter/jobs/:id')!;
    expect(archive.admitted).toBe(2); // the update of the job it created, and its archive
    for (const file of filesUnder(run.runDir))
      expect({ file, marker: fileText(file).includes(run.marker) }).toEqual({ file, marker: false });
    expect(run.terminal.includes(run.marker)).toBe(false);
    // A configured deployment's folder verifies offline, every verdict judged again.
    expect((await verifyRun(run.runDir, { publicKey: null })).problems).toEqual([]);
  }, 120_000);

  it('writes: none: creates and changes nothing, and the checks that need an upload say so', async () => {
    const run = await runWith('none');
    expect(run.after).toEqual(run.before);
    const ingest = run.results.checks.find((c) => c.id === 'QUOTA-INGEST')!;
    expect(ingest.verdict).toBe('skipped');
    expect(ingest.reasons).toEqual([{ code: 'writes-none' }]);
    expect(notPassed(run.results.checks.filter((c) => c.id !== 'QUOTA-INGEST'))).toEqual([]);
    expect(run.results.footprint).toMatchObject({ writes: 'none', created: [], announced: [] });
    expect(run.results.footprint!.written.every((r) => r.admitted === 0)).toBe(true);
    expect(
      run.observations.some((o) => o.method === 'POST' && o.path.includes('resume-analysis') && o.status === 202),
    ).toBe(false);
  }, 120_000);
});
