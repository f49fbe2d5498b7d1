/**
 * Config revocation fields take effect: a config file's `revocation.trials`, `revocation.interval`
 * and `revocation.settle` shape the trials (the flags first, then the config's, then the
 * scenario's). The reference target runs in-process; a deployment config names one of its
 * organizations, whose keys live only in the environment, and an `http` hook that provisions and
 * revokes keys through the target's admin API. The scenario's shape (5 trials, 10 ms, 2 s) differs
 * from the config's (2 trials, 25 ms, 300 ms) in every field, so a value taken from the wrong
 * source shows. Judged by what the run records: results.json data, revocation.csv and the probes'
 * slots in observations.ndjson.gz.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckId, CheckResult } from '../../src/catalogue/types.ts';
import { parseConfig } from '../../src/config/load.ts';
import { SCOPE_NAMES } from '../../src/contract/types.ts';
import type { Observation } from '../../src/measure/observation.ts';
import { REVOCATION_CSV_COLUMNS } from '../../src/revocation/csv.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import type { RunOptions } from '../../src/run/options.ts';
import type { LatencyData } from '../../src/verdicts/revoke-latency.ts';
import type { StickyData } from '../../src/verdicts/revoke-sticky.ts';
import { runSuite } from '../../src/run/run.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { configRun } from '../helpers/run-options.ts';
import { keyOf, orgWithKey, useTarget } from '../helpers/target.ts';
import { fileText, filesUnder, runObservations } from '../helpers/run-files.ts';

const CHECKS = ['REVOKE-LATENCY', 'REVOKE-STICKY', 'AUTH-REVOKED', 'ROTATION'] as const satisfies readonly CheckId[];
const EDGES = 3;
/** The config's shape. */
const CONFIG = { trials: 2, intervalMs: 25, settleMs: 300 } as const;
/** The scenario's shape: every field differs from the config's. */
const SCENARIO = { trials: 5, intervalMs: 10, settleMs: 2000 } as const;

const target = useTarget({ edges: EDGES, windowMs: 2000, revocationDelayMs: 100 });

/** A fresh organization with primary and secondary keys, and the environment a deployment would export. */
async function deploymentEnv(): Promise<Record<string, string>> {
  const { admin, target: running } = target();
  const primary = await orgWithKey(admin, 'starter');
  const secondary = await keyOf(admin, primary.orgId);
  return {
    TG_ADMIN_URL: running.adminUrl,
    TG_ORG_ID: primary.orgId,
    TG_REV_PRIMARY: primary.key,
    TG_REV_SECONDARY: secondary.key,
  };
}

/** The deployment's config file, as parsed at the boundary: keys by variable name only. */
function deploymentConfig() {
  return parseConfig(
    {
      target: { edges: target().target.edges },
      window: '2s',
      timeout: '2s',
      orgs: [
        {
          name: 'starter-rev',
          tier: 'starter',
          keys: { primary: { env: 'TG_REV_PRIMARY' }, secondary: { env: 'TG_REV_SECONDARY' } },
        },
      ],
      revocation: {
        org: 'starter-rev',
        trials: CONFIG.trials,
        interval: `${CONFIG.intervalMs}ms`,
        settle: `${CONFIG.settleMs}ms`,
        hook: {
          type: 'http',
          provision: {
            method: 'POST',
            url: '{env:TG_ADMIN_URL}/admin/orgs/{env:TG_ORG_ID}/keys',
            body: { scopes: [...SCOPE_NAMES], env: 'test' },
            keyPath: 'key',
            keyIdPath: 'id',
          },
          revoke: { method: 'POST', url: '{env:TG_ADMIN_URL}/admin/keys/{keyId}/revoke' },
          timeout: '5s',
        },
      },
    },
    'config-revocation test config',
  );
}

interface CsvRow {
  readonly trial: number;
  readonly edge: string;
  readonly upperMs: number;
  readonly revokeCallMs: number;
  readonly stoppedBy: string;
}

function readCsv(runDir: string): CsvRow[] {
  const [header, ...lines] = readFileSync(join(runDir, 'revocation.csv'), 'utf8').trim().split('\n');
  expect(header).toBe(REVOCATION_CSV_COLUMNS.join(','));
  const column = (name: (typeof REVOCATION_CSV_COLUMNS)[number]) => REVOCATION_CSV_COLUMNS.indexOf(name);
  return lines.map((line) => {
    const cells = line.split(',');
    return {
      trial: Number(cells[column('trial')]),
      edge: cells[column('edge')]!,
      upperMs: Number(cells[column('upperMs')]),
      revokeCallMs: Number(cells[column('revokeCallMs')]),
      stoppedBy: cells[column('stoppedBy')]!,
    };
  });
}

const readObservations = (runDir: string) => runObservations<Observation>(runDir);

/** Dense-loop probes (`probe/<trial>`), per trial and edge, in slot order. */
function probesByTrialAndEdge(observations: readonly Observation[]): Map<number, Map<string, Observation[]>> {
  const grouped = new Map<number, Map<string, Observation[]>>();
  for (const o of observations) {
    const match = /^probe\/(\d+)$/.exec(o.phase);
    if (!match) continue;
    const trial = Number(match[1]);
    const edges = grouped.get(trial) ?? new Map<string, Observation[]>();
    edges.set(o.edge, [...(edges.get(o.edge) ?? []), o]);
    grouped.set(trial, edges);
  }
  for (const edges of grouped.values())
    for (const probes of edges.values()) probes.sort((a, b) => a.intendedAt! - b.intendedAt!);
  return grouped;
}

const isMultiple = (value: number, step: number) => Math.abs(value / step - Math.round(value / step)) < 1e-6;

/** Every file under `dir`, recursively (bounded by the run directory's depth). */

async function runWith(overrides: RunOptions['revocation']) {
  const env = await deploymentEnv();
  const config = deploymentConfig();
  const { io } = captureIo({ env });
  const options = configRun(config, env, {
    scenarios: [defineScenario({ tier: 'starter', revocation: SCENARIO })],
    checks: CHECKS,
    revocation: overrides,
  });
  const outcome = await runSuite(options, io);
  const runDir = outcome.runDir!;
  const checks = outcome.results!.checks;
  const byId = (id: CheckId): CheckResult => {
    const found = checks.filter((c) => c.id === id);
    expect(found.map((c) => c.id)).toEqual([id]);
    return found[0]!;
  };
  return { env, outcome, runDir, checks, byId };
}

/**
 * What the run recorded about its shape: the trials judged, the probe slot grid's step and the
 * settle period, each from results.json, revocation.csv and observations.ndjson.gz.
 */
function expectShape(
  run: Awaited<ReturnType<typeof runWith>>,
  shape: { trials: number; intervalMs: number; settleMs: number },
) {
  const { outcome, runDir, checks, byId, env } = run;
  const trialNumbers = Array.from({ length: shape.trials }, (_, i) => i + 1);
  // As the verdicts word a count ("one trial", "2 trials").

  // The reference target is conformant: every revocation check passes on the trials run.
  expect(Object.fromEntries(checks.map((c) => [c.id, c.verdict]))).toEqual(
    Object.fromEntries(CHECKS.map((id) => [id, 'pass'])),
  );
  expect(outcome.exitCode).toBe(0);

  // results.json: the trials planned and judged, the interval and the settle period the driver used.
  const latency = byId('REVOKE-LATENCY');
  const data = latency.data as LatencyData;
  expect(data.plannedTrials).toBe(shape.trials);
  expect(data.intervalMs).toBe(shape.intervalMs);
  expect([...new Set(data.trials.map((row) => row.trial))].sort((a, b) => a - b)).toEqual(trialNumbers);
  expect(data.trials).toHaveLength(shape.trials * EDGES);
  expect(byId('AUTH-REVOKED').data).toEqual({
    rejectStatus: 401,
    edges: EDGES,
    plannedTrials: shape.trials,
    finalProbes: shape.trials * EDGES,
  });
  expect((byId('REVOKE-STICKY').data as StickyData).settleMs).toBe(shape.settleMs);

  // revocation.csv: one row per trial and edge, every trial settled.
  const rows = readCsv(runDir);
  expect(rows.map((r) => `${r.trial}/${r.edge}`)).toEqual(
    trialNumbers.flatMap((t) => Array.from({ length: EDGES }, (_, e) => `${t}/edge-${e}`)),
  );
  expect(new Set(rows.map((r) => r.stoppedBy))).toEqual(new Set(['settled']));

  // observations.ndjson.gz: dense-loop probes of exactly these trials, on every edge.
  const observations = readObservations(runDir);
  const probes = probesByTrialAndEdge(observations);
  expect([...probes.keys()].sort((a, b) => a - b)).toEqual(trialNumbers);
  for (const [trial, edges] of probes) {
    expect({ trial, edges: [...edges.keys()].sort() }).toEqual({
      trial,
      edges: Array.from({ length: EDGES }, (_, e) => `edge-${e}`),
    });

    // The probe interval: each edge's probes sit on one slot grid, whose step is the interval
    // (a slot that fell while the previous probe was out is skipped, so steps are whole multiples).
    for (const [edge, list] of edges) {
      const steps = list.slice(1).map((p, i) => p.intendedAt! - list[i]!.intendedAt!);
      expect({ trial, edge, offGrid: steps.filter((s) => s <= 0 || !isMultiple(s, shape.intervalMs)) }).toEqual({
        trial,
        edge,
        offGrid: [],
      });
      expect({ trial, edge, smallestStep: Math.round(Math.min(...steps) * 1000) / 1000 }).toEqual({
        trial,
        edge,
        smallestStep: shape.intervalMs,
      });
    }

    // The settle period: the stop rule ends probing once every edge has rejected, the revoke call has
    // returned, and `settle` has passed since. The revoke call's time is recovered from an edge's
    // first rejection and its upper bound (both recorded); no slot may begin after the settle period
    // ended (up to one step: the stop rule is read once per slot).
    const trialRows = rows.filter((r) => r.trial === trial);
    const firstRejection = (edge: string) => edges.get(edge)!.find((p) => p.status === 401)!;
    const revokeAt = firstRejection('edge-0').headersAt! - trialRows.find((r) => r.edge === 'edge-0')!.upperMs;
    const settleFrom = revokeAt + Math.max(...trialRows.map((r) => r.upperMs), trialRows[0]!.revokeCallMs);
    const lastSlot = Math.max(...[...edges.values()].flat().map((p) => p.intendedAt!));
    expect(
      lastSlot - settleFrom,
      `trial ${trial}: ms from the start of the settle period to the last probe slot`,
    ).toBeLessThan(shape.settleMs + shape.intervalMs);
  }

  // Secrets: keys came from the environment only; none reaches the run directory.
  const secrets = [env['TG_REV_PRIMARY']!, env['TG_REV_SECONDARY']!];
  for (const file of filesUnder(runDir)) {
    const text = fileText(file);
    expect({
      file,
      fullKey: /xh_(test|live)_[A-Za-z0-9]{32}/.exec(text)?.[0] ?? null,
      secret: secrets.some((s) => text.includes(s)),
    }).toEqual({
      file,
      fullKey: null,
      secret: false,
    });
  }
}

describe('Config revocation fields take effect', () => {
  it("the config file's trials, interval and settle shape the trials, not the scenario's", async () => {
    expectShape(await runWith({}), CONFIG);
  }, 60_000);

  it('a flag beats the config (--revocation-trials 1); the config still gives interval and settle', async () => {
    expectShape(await runWith({ trials: 1 }), { ...CONFIG, trials: 1 });
  }, 60_000);
});
