/**
 * Revocation trials from afar: the embedded target's edges behind a relay that adds 80 ± 20 ms round
 * trips, over HTTPS, its four revocation checks run as `tiergate run` runs them. The clean target
 * passes, in each trial some edge's first rejection due while the last admission was still out
 * (probes overlap across the moment the edge began rejecting), and the clock starting on a connection already open;
 * slow-revocation still fails REVOKE-LATENCY, revocation-flaps REVOKE-STICKY. Judged by what the run recorded (results.json, and
 * its trials read back from the judgement and the observations as `tiergate verify` reads them),
 * never by a duration of the test's own.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckId, CheckResult } from '../../src/catalogue/types.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { OBSERVATIONS_FILE } from '../../src/measure/observation-file.ts';
import type { FaultName } from '../../src/reference-server/faults.ts';
import type { EmbeddedTarget } from '../../src/run/options.ts';
import { runSuite } from '../../src/run/run.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import { readJudgements, readObservations } from '../../src/suite/judgement-file.ts';
import { JUDGEMENTS_FILE, withSharedArgs } from '../../src/suite/judgements.ts';
import { decodeArgs, referenced, type ObservationSource } from '../../src/verdicts/replay.ts';
import { edgeBounds } from '../../src/verdicts/support/revocation-bounds.ts';
import type { RevocationEvidence } from '../../src/verdicts/support/revocation-evidence.ts';
import { CLOCK_NOTE_START } from '../../src/verdicts/support/revocation-method.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { expectLateOnly } from '../helpers/revocation-results.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';

const CHECKS = ['REVOKE-LATENCY', 'REVOKE-STICKY', 'AUTH-REVOKED', 'ROTATION'] as const satisfies readonly CheckId[];
/** Two trials at once; a settle period past revocation-flaps' readmission (200 ms after the edge rejects, for 300 ms). */
const SHAPE = { trials: 2, intervalMs: 10, settleMs: 700, parallel: 2 } as const;

async function runFromAfar(faults: readonly FaultName[]) {
  const base = shortRun(tempReportsDir(), { checks: CHECKS, faults, windowMs: 60_000 });
  const { io } = captureIo();
  const outcome = await runSuite(
    {
      ...base,
      target: { ...(base.target as EmbeddedTarget), revocationDelayMs: 300, tls: true, latencyMs: 80, jitterMs: 20 },
      scenarios: [defineScenario({ tier: 'starter', revocation: SHAPE })],
    },
    io,
  );
  const checks = outcome.results!.checks;
  const verdicts = Object.fromEntries(checks.map((c) => [c.id, c.verdict]));
  const latency = checks.find((c) => c.id === 'REVOKE-LATENCY') as CheckResult;
  return { runDir: outcome.runDir!, verdicts, latency, exitCode: outcome.exitCode };
}

/**
 * The trials REVOKE-LATENCY judged, read back from the run folder as `tiergate verify` reads them,
 * and the observations they cite (each probe's slot is there: `intendedAt`).
 */
async function judgedTrials(
  runDir: string,
): Promise<{ evidence: RevocationEvidence; observations: ObservationSource }> {
  const problems: string[] = [];
  const { records } = withSharedArgs((await readJudgements(join(runDir, JUDGEMENTS_FILE), problems))!);
  const record = records.find((r) => r.fn === 'revokeLatencyVerdict')!;
  const source = await readObservations(join(runDir, OBSERVATIONS_FILE), referenced(record.args!));
  expect(problems).toEqual([]);
  return {
    evidence: (decodeArgs(record.args!, source, recruitingApi) as [RevocationEvidence])[0],
    observations: source,
  };
}

// One run at a time: three at once, each a target, its relays and the harness's TLS on this machine,
// would load it enough that the round trips measured are the machine's more than the relay's.
describe('revocation from afar (80 ± 20 ms round trips, HTTPS)', () => {
  it('the clean target: all four pass, a closing rejection due while the admission before it was out', async () => {
    const run = await runFromAfar([]);
    expect(run.verdicts).toEqual(Object.fromEntries(CHECKS.map((id) => [id, 'pass'])));
    expect(run.exitCode).toBe(0);
    const clock = run.latency.notes.find((n) => n.startsWith(CLOCK_NOTE_START));
    expect(clock).toContain('on a connection already open (no handshake inside it)');

    const { evidence, observations } = await judgedTrials(run.runDir);
    expect(evidence.runs.map((r) => r.stoppedBy)).toEqual(['settled', 'settled']);
    for (const trial of evidence.runs) {
      // The round trips asked for more than one probe in flight per edge, and the trial kept more.
      for (const pace of trial.pacing) expect(pace.inFlight).toBeGreaterThan(1);
      // Sent one after the other, a rejection would leave only once the admission before it was
      // answered; here probes overlap, so some edge's closing rejection was due (its slot, from the
      // observations) while the admission before it was still out: a bracket narrower than the two
      // round trips. Some, not every: on a loaded machine one edge's answer may come back sooner
      // than the grid's next slot, which is the machine's timing, not the pacing's.
      const overlapped = edgeBounds(trial, evidence.rejectStatus).filter((b) => {
        const due = observations.byId.get(b.firstRejected!.id)!.intendedAt;
        return due !== null && due < b.lastAdmitted!.headersAt!;
      });
      expect({ trial: trial.trial, overlapped: overlapped.length > 0 }).toEqual({
        trial: trial.trial,
        overlapped: true,
      });
    }
  });

  it('slow-revocation still fails REVOKE-LATENCY, naming the slow edge', async () => {
    const run = await runFromAfar(['slow-revocation']);
    expect(run.verdicts).toMatchObject({ 'REVOKE-LATENCY': 'fail', 'REVOKE-STICKY': 'pass', 'AUTH-REVOKED': 'pass' });
    expectLateOnly(run.latency, 'edge-2');
  });

  it('revocation-flaps still fails REVOKE-STICKY', async () => {
    const run = await runFromAfar(['revocation-flaps']);
    expect(run.verdicts).toMatchObject({ 'REVOKE-LATENCY': 'pass', 'REVOKE-STICKY': 'fail' });
  });
});
