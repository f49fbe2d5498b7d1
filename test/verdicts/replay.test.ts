/** A verdict's input written down and read back: observations by reference, the same object wherever one appears; a replay judges as the first call did. */
import { describe, expect, it } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import type { Observation } from '../../src/measure/observation.ts';
import { probeRecord } from '../../src/measure/revocation-records.ts';
import {
  decodeArgs,
  encodeArgs,
  MissingObservation,
  NotEncodable,
  referenced,
  tierObservations,
} from '../../src/verdicts/replay.ts';
import { isReplayable, replay } from '../../src/checks/verdict-table.ts';
import { authRejected } from '../../src/verdicts/auth-missing-malformed-unknown.ts';
import { obs, resetObservations } from '../helpers/observations.ts';

/** As verify reads them: each observation parsed back from its line. */
function fromFile(observations: readonly Observation[]) {
  const inOrder = observations.map((o) => JSON.parse(JSON.stringify(o)) as Observation);
  return { byId: new Map(inOrder.map((o) => [o.id, o])), inOrder };
}

describe('encodeArgs and decodeArgs', () => {
  it('observations by reference, one object per id; the contract by name; Maps, Sets, undefined and non-finite numbers tagged', () => {
    resetObservations();
    const a = obs({ status: 401 });
    const b = obs({ status: 200, tier: 'professional' });
    const args = [
      [a, b, a],
      { first: a, byEdge: new Map([['edge-0', [b]]]), seen: new Set([1, 2]), none: undefined, far: Infinity },
      recruitingApi,
    ];
    const encoded = encodeArgs(args, recruitingApi);
    expect(JSON.parse(JSON.stringify(encoded))).toEqual([
      [{ $obs: a.id }, { $obs: b.id }, { $obs: a.id }],
      {
        first: { $obs: a.id },
        byEdge: { $map: [['edge-0', [{ $obs: b.id }]]] },
        seen: { $set: [1, 2] },
        none: { $undefined: true },
        far: { $number: 'Infinity' },
      },
      { $contract: recruitingApi.name },
    ]);
    const source = fromFile([a, b]);
    const [list, object, contract] = decodeArgs(
      JSON.parse(JSON.stringify(encoded)) as unknown[],
      source,
      recruitingApi,
    ) as [Observation[], Record<string, unknown>, unknown];
    expect(list[0]).toBe(source.byId.get(a.id));
    expect(list[2]).toBe(list[0]);
    expect(object['first']).toBe(list[0]);
    expect(object['byEdge']).toEqual(new Map([['edge-0', [source.byId.get(b.id)]]]));
    expect(object['seen']).toEqual(new Set([1, 2]));
    expect('none' in object && object['none'] === undefined).toBe(true);
    expect(object['far']).toBe(Infinity);
    expect(contract).toBe(recruitingApi);
  });

  it("a revocation probe's record is made again from its observation; a tier's observations are taken in file order", () => {
    resetObservations();
    const o = obs({ phase: 'probe/3', status: 401 });
    const other = obs({ tier: 'enterprise' });
    const encoded = encodeArgs([probeRecord(o, 'probe')], recruitingApi);
    expect(encoded).toEqual([{ $probe: o.id, phase: 'probe' }]);
    const source = fromFile([o, other]);
    expect(decodeArgs(encoded, source, recruitingApi)).toEqual([probeRecord(source.byId.get(o.id)!, 'probe')]);
    expect(decodeArgs([tierObservations('enterprise')], source, recruitingApi)).toEqual([[source.byId.get(other.id)]]);
  });

  it('a function or a class instance cannot be written down; an observation the file lacks is named', () => {
    expect(() => encodeArgs([() => 1], recruitingApi)).toThrow(NotEncodable);
    class Histogram {}
    expect(() => encodeArgs([{ h: new Histogram() }], recruitingApi)).toThrow(/an instance of Histogram/);
    expect(() => decodeArgs([{ $obs: 404 }], fromFile([]), recruitingApi)).toThrow(MissingObservation);
  });
});

describe('referenced', () => {
  it('names the observation ids and whole tiers an encoding refers to, at any depth', () => {
    const encoded = [
      [{ $obs: 3 }, { nested: { $probe: 9, phase: 'probe' } }],
      tierObservations('starter'),
      { $map: [['k', { $obs: 4 }]] },
      401,
    ];
    expect(referenced(encoded)).toEqual({ ids: new Set([3, 9, 4]), tiers: new Set(['starter']) });
  });
});

describe('replay', () => {
  it('judges as the first call did, and differently once an observation says otherwise', () => {
    resetObservations();
    const sent = [obs({ status: 401 }), obs({ status: 401 })];
    const first = authRejected(sent, 401);
    const encoded = JSON.parse(JSON.stringify(encodeArgs([sent, 401], recruitingApi))) as unknown[];
    expect(replay('authRejected', decodeArgs(encoded, fromFile(sent), recruitingApi))).toEqual(first);
    const edited = fromFile([sent[0]!, { ...sent[1]!, status: 200 }]);
    expect(replay('authRejected', decodeArgs(encoded, edited, recruitingApi)).verdict).toBe('fail');
    expect(first.verdict).toBe('pass');
  });

  it('names only the functions it has', () => {
    expect(isReplayable('quotaExactVerdict')).toBe(true);
    expect(isReplayable('keyFormatVerdict')).toBe(false);
    expect(isReplayable('toString')).toBe(false);
  });
});
