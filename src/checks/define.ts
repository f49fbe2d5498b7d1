/**
 * A check, declared once: its module in src/checks/ holds its catalogue entry, the verdict function
 * that decides it, and what the report draws for it. The registry of those modules (registry.ts) is
 * generated from the folder, so adding a check is adding its module (docs/architecture.md, "Adding a
 * check").
 */
import type { AssumptionId } from '../contract/types.ts';
import type { Finding } from '../catalogue/types.ts';

/**
 * What the report draws from a check's data, each as its verdict returns it: a quota series against
 * request number, the same for Remaining alone, a held-uploads timeline, revocation brackets per
 * edge. results/schema.ts checks each kind's data, report/details.ts draws it.
 */
export type ChartKind = 'quota-series' | 'remaining-series' | 'held-timeline' | 'revocation-brackets';

export interface CheckDeclaration<Id extends string = string> {
  /** Stable ID: results, filters and the README cite it. */
  readonly id: Id;
  readonly title: string;
  /** What it asserts, in a few words: the README's check table. */
  readonly asserts: string;
  /** Spec sections it enforces, e.g. '§7.1, §8'. */
  readonly spec: string;
  /** The requirement, as one sentence. */
  readonly requirement: string;
  /** Assumptions it rests on; empty when it rests on the spec alone. */
  readonly assumptions: readonly AssumptionId[];
  /**
   * The pure verdict function that decides it, by the name its judgements are written with
   * (`verdictIn`). Several checks may share one (QUOTA-READ and QUOTA-INGEST); the table of verdicts
   * a run judges with and `tiergate verify` judges again with is made of these (verdict-table.ts).
   */
  readonly verdict: VerdictRef;
  /** Why its judgements are written without their input, when they are: `tiergate verify` says so. */
  readonly notJudgedAgain?: string;
  /** What the report shows for it besides its verdict. */
  readonly report: {
    /** The chart drawn from its data. */
    readonly draws?: ChartKind;
    /** Whether it answers the report's first question: does every tier get exactly the quotas it is sold? */
    readonly answersTierLimits?: boolean;
  };
}

/** A pure verdict function: what was observed (and the figures judged by) in, a finding out. */
export type VerdictFn = (...args: never[]) => Finding;

/**
 * A verdict function by name, loaded by the judging machinery (the judgement log, `tiergate verify`:
 * verdict-table.ts), not by the catalogue: `tiergate list` and `--help` load none of src/verdicts/,
 * nor zod, with which two of them validate bodies.
 */
export interface VerdictRef<N extends string = string, F extends VerdictFn = VerdictFn> {
  readonly name: N;
  readonly load: () => Promise<F>;
}

/** The verdict `name` of the module `load` imports: `verdictIn('quotaExactVerdict', () => import('…'))`. */
export function verdictIn<N extends string, M extends { readonly [K in N]: VerdictFn }>(
  name: N,
  load: () => Promise<M>,
): VerdictRef<N, M[N]> {
  return { name, load: async () => (await load())[name] };
}

/** A verdict function the check's module holds itself: `verdictOf({ myVerdict })` (the key names it). */
export function verdictOf<N extends string, F extends VerdictFn>(named: { readonly [K in N]: F }): VerdictRef<N, F> {
  const [name, fn] = Object.entries(named)[0] as [N, F];
  return { name, load: async () => fn };
}

/**
 * A check's declaration, its literal types kept (the ID union and the verdict names are derived from
 * them). A module exports it as `check`, not as its default: tsc (5.9) leaves the `.ts` of a dynamic
 * import inside `export default` unrewritten, and the built verdict would not load.
 */
export function defineCheck<const D extends CheckDeclaration>(declaration: D): D {
  return declaration;
}
