/**
 * How a reason code is declared: the figures it carries, the one sentence rendered from them, and
 * what `tiergate explain` and docs/troubleshooting.md say about it. Every sentence a result gives
 * for not being a plain pass is written here once, per code.
 */

/** Where a reason may stand: why a check failed or stayed open, or what a pass rests on. */
export type ReasonVerdict = 'fail' | 'inconclusive' | 'skipped' | 'pass';

/** A figure a reason carries: JSON-serialisable, so results.json and `verify` keep it exactly. */
export type Figure = string | number | boolean | null | readonly (string | number)[];

export interface ReasonDefinition<F extends Readonly<Record<string, Figure>>> {
  /** The verdicts this reason explains. */
  readonly verdicts: readonly ReasonVerdict[];
  /** The sentence a report, the terminal, JUnit and the step summary show, from the figures. */
  readonly text: (figures: F) => string;
  /** What it means, in a sentence or two (`tiergate explain CODE`). */
  readonly means: string;
  /** The usual causes. */
  readonly causes: readonly string[];
  /** What to change, naming the flag or config field. */
  readonly change: readonly string[];
}

/** Declares one reason with figures of type F: `reason<{ sent: number }>()({ ... })`. */
export const reason =
  <F extends Readonly<Record<string, Figure>> = Readonly<Record<never, never>>>() =>
  (definition: ReasonDefinition<F>): ReasonDefinition<F> =>
    Object.freeze(definition);
