/**
 * The verdict functions a run's judgements name, by name, made from the check modules: what
 * `tiergate verify` judges again with, and which a result of each check may rest on.
 */
import type { CheckId, Finding, Verdict } from '../catalogue/types.ts';
import { allChecks, checkDefinition, type CheckDefinition } from './catalogue.ts';

type Withheld = Extract<CheckDefinition, { readonly notJudgedAgain: string }>;
type Judged = Exclude<CheckDefinition, Withheld>;

/** Every verdict whose judgements are written with their input, by name. */
export type ReplayableTable = {
  readonly [C in Judged as C['verdict']['name']]: Awaited<ReturnType<C['verdict']['load']>>;
};
export type ReplayableName = keyof ReplayableTable;

const judged = allChecks().filter((c) => !('notJudgedAgain' in c));

/**
 * Loaded here, once, when the judging machinery loads (the suite's judgement log, verify): a
 * top-level await, so an importer of this module (the run, the library's entry point) has every
 * verdict at hand; the catalogue alone loads none of src/verdicts/ (define.ts `VerdictRef`).
 */
export const REPLAYABLE = Object.fromEntries(
  await Promise.all(judged.map(async (c) => [c.verdict.name, await c.verdict.load()] as const)),
) as ReplayableTable;

export const isReplayable = (name: string): name is ReplayableName => Object.hasOwn(REPLAYABLE, name);

/** Judges again: the named function on the decoded arguments. */
export function replay(name: ReplayableName, args: readonly unknown[]): Finding {
  const fn = REPLAYABLE[name] as (...a: readonly unknown[]) => Finding;
  return fn(...args);
}

const PROCEDURE_WHY =
  'the procedure decided it, with no verdict function (not run, skipped, or undecided, with the reason)';

/** The judgements written without their input, and why: verify lists them as not judged again. */
export const NOT_REPLAYED: Readonly<Record<NotReplayedName, string>> = Object.fromEntries([
  ...allChecks().flatMap((c) => ('notJudgedAgain' in c ? [[c.verdict.name, c.notJudgedAgain]] : [])),
  ['procedure', PROCEDURE_WHY],
]);

export type NotReplayedName = Withheld['verdict']['name'] | 'procedure';

export const isNotReplayed = (name: string): name is NotReplayedName => Object.hasOwn(NOT_REPLAYED, name);

/**
 * Whether a judgement named `fn` may stand for a result of `check` with `verdict`: the verdict its
 * module names (a record naming another, a forged "procedure" pass, does not verify). The procedure
 * itself only ever leaves a check skipped or inconclusive.
 */
export function mayDecide(fn: string, check: CheckId, verdict: Verdict): boolean {
  if (fn === 'procedure') return verdict === 'skipped' || verdict === 'inconclusive';
  return checkDefinition(check).verdict.name === fn;
}
