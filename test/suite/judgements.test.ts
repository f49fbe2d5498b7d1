/** The judgement log: a result links to the judgement whose finding it was made of, even where another check found the same words. */
import { describe, expect, it } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { JudgementLog, withSharedArgs, type JudgementRecord } from '../../src/suite/judgements.ts';
import { checkResult } from '../../src/checks/result.ts';
import { because } from '../../src/catalogue/reasons/index.ts';
import { judgedThenProcedure } from '../../src/verdicts/replay.ts';
import { obs, resetObservations } from '../helpers/observations.ts';

const context = { tier: 'starter', org: 'starter-a', variant: '', startedWall: 0, durationMs: 0 } as const;

describe('JudgementLog', () => {
  it('links each result to its own judgement, by the finding it was made of, though two found the same words', () => {
    resetObservations();
    const log = new JudgementLog(recruitingApi);
    const missing = log.judge('authRejected', [obs({ status: 401 }), obs({ status: 401 })], 401);
    const unknown = log.judge('authRejected', [obs({ status: 401 }), obs({ status: 401 })], 401);
    // The same finding but for the observations it cites: the same verdict, words, reasons and figures.
    expect({ ...missing, evidence: unknown.evidence }).toEqual(unknown);
    expect(log.link(checkResult('AUTH-MISSING', missing, context), missing)).toBe(true);
    expect(log.link(checkResult('AUTH-UNKNOWN', unknown, context), unknown)).toBe(true);
    expect(log.records.map((r) => [r.link?.check, r.args?.[0]])).toEqual([
      ['AUTH-MISSING', [{ $obs: 1 }, { $obs: 2 }]],
      ['AUTH-UNKNOWN', [{ $obs: 3 }, { $obs: 4 }]],
    ]);
  });

  it('a finding the procedure added its own reasons to links to its judgement; other added reasons do not', () => {
    resetObservations();
    const log = new JudgementLog(recruitingApi);
    const found = log.judge('authRejected', [obs({ status: 401 })], 401);
    const remeasured = because('measured-again', { first: ['window-rolled-over'], spoiled: ['X'], ownSpoiled: true });
    const foreign = { ...found, reasons: [because('never-refused', { sent: 1 })] };
    expect(log.link(checkResult('AUTH-MISSING', foreign, context), foreign)).toBe(false);
    const amended = { ...found, reasons: [...(found.reasons ?? []), remeasured] };
    expect(log.link(checkResult('AUTH-MISSING', amended, context), amended)).toBe(true);
    expect(judgedThenProcedure([], [remeasured])).toBe(true);
    expect(judgedThenProcedure([remeasured], [])).toBe(false);
  });

  it('a finding copied on (a note added) links by its words, to the latest judgement that found them; none found them: not linked', () => {
    resetObservations();
    const log = new JudgementLog(recruitingApi);
    log.judge('authRejected', [obs({ status: 401 })], 401);
    const again = log.judge('authRejected', [obs({ status: 401 })], 401);
    const copied = { ...again, notes: [...again.notes, 'measured again'] };
    expect(log.link(checkResult('AUTH-MISSING', copied, context), copied)).toBe(true);
    expect(log.records.map((r) => r.link?.check ?? null)).toEqual([null, 'AUTH-MISSING']);
    const made = {
      verdict: 'inconclusive' as const,
      expected: 'uploads that fit',
      actual: 'not run',
      evidence: [],
      notes: [],
    };
    expect(log.link(checkResult('QUOTA-INGEST', made, context), made)).toBe(false);
    // Every result gets a record: one the procedure made is recorded so.
    log.linkOrRecord(checkResult('QUOTA-INGEST', made, context), made);
    expect(log.records.at(-1)).toMatchObject({ fn: 'procedure', args: null, link: { check: 'QUOTA-INGEST' } });
  });

  it('an argument judged on again is written once, and put back in place for verify; a reference to nothing earlier is named', () => {
    resetObservations();
    const log = new JudgementLog(recruitingApi);
    const sent = [obs({ status: 401 }), obs({ status: 401 })];
    log.judge('authRejected', sent, 401);
    log.judge('authRejected', sent, 401);
    expect(log.records[1]!.args).toEqual([{ $sameAs: [0, 0] }, 401]);
    const { records, problems } = withSharedArgs(JSON.parse(JSON.stringify(log.records)) as JudgementRecord[]);
    expect(problems).toEqual([]);
    expect(records[1]!.args).toEqual(records[0]!.args);
    const dangling = withSharedArgs([{ ...log.records[1]!, args: [{ $sameAs: [5, 0] }, 401] }]);
    expect(dangling.problems).toEqual(['judgements.ndjson.gz: record 1 refers to an argument no earlier record has']);
  });

  it('a withheld judgement is recorded with why, and no input', () => {
    const log = new JudgementLog(recruitingApi);
    const found = { verdict: 'pass' as const, expected: 'keys match', actual: 'all 3 match', evidence: [], notes: [] };
    expect(log.withheld(found, 'keyFormatVerdict')).toBe(found);
    expect(log.records[0]).toMatchObject({
      fn: 'keyFormatVerdict',
      args: null,
      why: 'its input is the API keys themselves, which a run never writes down',
    });
  });
});
