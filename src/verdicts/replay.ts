/**
 * What a verdict was judged on, written so that it can be judged again (README "Evidence a third
 * party can check"). A verdict function's arguments are encoded as JSON in which every observation is
 * a reference to its line in the observations file (`{"$obs": id}`) and the contract a reference to
 * it: `tiergate verify` reads the observations as they are on disk, puts them back in place (one
 * object per id, so identity holds), calls the same pure function and compares. The observations are
 * the raw evidence, and what is made from one alone (a revocation probe's record) is made again from
 * it; what else a verdict takes (the figures judged by, a window's estimate) is kept as it was
 * handed over.
 */
import type { Contract } from '../contract/types.ts';
import type { Finding } from '../catalogue/types.ts';
import type { Reason } from '../catalogue/reasons/index.ts';
import type { Observation } from '../measure/observation.ts';
import { probeRecord, type ProbeRecord } from '../measure/revocation-records.ts';
import type { ProbePhase } from '../measure/tags.ts';

/**
 * What a finding says, as the judgement log keeps it: its verdict and reasons (codes and figures),
 * which a replay is compared by, and its words, by which the log links a result to its judgement.
 */
export interface FindingText {
  readonly verdict: Finding['verdict'];
  readonly expected: string;
  readonly actual: string;
  readonly reasons: readonly Reason[];
}

export const findingText = (
  f: Omit<FindingText, 'reasons'> & { readonly reasons?: readonly Reason[] },
): FindingText => ({
  verdict: f.verdict,
  expected: f.expected,
  actual: f.actual,
  reasons: f.reasons ?? [],
});

/** The same reasons, codes and figures, in the same order. */
export const sameReasons = (a: readonly Reason[], b: readonly Reason[]): boolean =>
  JSON.stringify(a) === JSON.stringify(b);

/**
 * Reasons the run's procedure adds after a judgement's own (suite/fresh-window.ts): measured again
 * in the next window, or why it was not. They are not the verdict function's to replay.
 */
const PROCEDURE_CODES: ReadonlySet<Reason['code']> = new Set<Reason['code']>([
  'measured-again',
  'remeasure-budget-spent',
  'no-fresh-window',
  'reads-do-not-fit-window',
  'uploads-do-not-fit-window',
  'uploads-slow-now',
]);

/**
 * Whether a result's reasons are a judgement's `judged` ones, in order, followed only by reasons the
 * procedure adds.
 */
export function judgedThenProcedure(judged: readonly Reason[], result: readonly Reason[]): boolean {
  const added = result.slice(judged.length);
  return sameReasons(judged, result.slice(0, judged.length)) && added.every((r) => PROCEDURE_CODES.has(r.code));
}

const isObservation = (v: object): v is Observation =>
  typeof (v as { id?: unknown }).id === 'number' && 'sentAt' in v && 'rateLimit' in v && 'check' in v && 'phase' in v;

const PROBE_FIELDS = ['id', 'edge', 'phase', 'sentAt', 'headersAt', 'status', 'error', 'edgeNode'].sort().join();

/** A revocation probe's compact record (measure/revocation-records.ts): made from its observation, so written as a reference to it. */
const isProbeRecord = (v: object): v is ProbeRecord =>
  typeof (v as { id?: unknown }).id === 'number' && Object.keys(v).sort().join() === PROBE_FIELDS;

/** Why a value cannot be written down (a function, a class instance): the judgement is then not replayable. */
export class NotEncodable extends Error {}

/** The arguments as JSON-ready values: observations and the contract by reference; Maps, Sets, undefined and non-finite numbers tagged. */
export function encodeArgs(args: readonly unknown[], contract: Contract): unknown[] {
  const encode = (value: unknown): unknown => {
    if (value === undefined) return { $undefined: true };
    if (typeof value === 'number') return Number.isFinite(value) ? value : { $number: String(value) };
    if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint')
      throw new NotEncodable(`a ${typeof value}`);
    if (value === null || typeof value !== 'object') return value;
    if (value === contract) return { $contract: contract.name };
    if (Array.isArray(value)) return value.map(encode);
    if (value instanceof Map) return { $map: [...value.entries()].map(([k, v]) => [encode(k), encode(v)]) };
    if (value instanceof Set) return { $set: [...value].map(encode) };
    if (value instanceof RegExp) return { $regexp: [value.source, value.flags] };
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null)
      throw new NotEncodable(`an instance of ${(value as object).constructor?.name ?? 'a class'}`);
    if (isObservation(value)) return { $obs: value.id };
    if (isProbeRecord(value)) return { $probe: value.id, phase: value.phase };
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encode(v)]));
  };
  return args.map(encode);
}

/** Observation ids an encoding refers to that the file lacks, as one error. */
export class MissingObservation extends Error {}

/** The observations file as read back: by id, and in file order (what the judgements refer to). */
export interface ObservationSource {
  readonly byId: ReadonlyMap<number, Observation>;
  /** In file order: at least every observation of each tier an argument takes whole. */
  readonly inOrder: readonly Observation[];
}

/** Every observation of a tier, in the order they were recorded (HDR-PRESENT's input): by its tier, not id by id. */
export const tierObservations = (tier: string) => ({ $tierObservations: tier });

/** The arguments back from their encoding, each observation the one read from the file (the same object wherever it appears). */
export function decodeArgs(encoded: readonly unknown[], source: ObservationSource, contract: Contract): unknown[] {
  const observations = source.byId;
  const decode = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map(decode);
    const tagged = value as Record<string, unknown>;
    if ('$obs' in tagged) {
      const o = observations.get(tagged['$obs'] as number);
      if (!o) throw new MissingObservation(`observation #${String(tagged['$obs'])} is not in the observations file`);
      return o;
    }
    if ('$probe' in tagged) {
      const o = observations.get(tagged['$probe'] as number);
      if (!o)
        throw new MissingObservation(
          `observation #${String(tagged['$probe'])} (a revocation probe) is not in the observations file`,
        );
      return probeRecord(o, tagged['phase'] as ProbePhase);
    }
    if ('$tierObservations' in tagged) return source.inOrder.filter((o) => o.tier === tagged['$tierObservations']);
    if ('$undefined' in tagged) return undefined;
    if ('$number' in tagged) return Number(tagged['$number']);
    if ('$contract' in tagged) return contract;
    if ('$map' in tagged)
      return new Map((tagged['$map'] as [unknown, unknown][]).map(([k, v]) => [decode(k), decode(v)]));
    if ('$set' in tagged) return new Set((tagged['$set'] as unknown[]).map(decode));
    if ('$regexp' in tagged) return new RegExp(...(tagged['$regexp'] as [string, string]));
    return Object.fromEntries(Object.entries(tagged).map(([k, v]) => [k, decode(v)]));
  };
  return encoded.map(decode);
}

/** What encoded arguments refer to in the observations file: ids, and tiers taken whole (so a reader keeps only those). */
export function referenced(encoded: readonly unknown[]): { readonly ids: Set<number>; readonly tiers: Set<string> } {
  const ids = new Set<number>();
  const tiers = new Set<string>();
  const walk = (value: unknown): void => {
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach(walk);
    const tagged = value as Record<string, unknown>;
    if (typeof tagged['$obs'] === 'number') ids.add(tagged['$obs']);
    else if (typeof tagged['$probe'] === 'number') ids.add(tagged['$probe']);
    else if (typeof tagged['$tierObservations'] === 'string') tiers.add(tagged['$tierObservations']);
    else Object.values(tagged).forEach(walk);
  };
  encoded.forEach(walk);
  return { ids, tiers };
}
