/**
 * The flags more than one command takes, each declared once: its type and its help, with the
 * default in the help generated from the constant that owns it (src/config/defaults.ts). An absent
 * flag stays undefined in the parsed args, and the command takes its default from that same
 * constant. The target's flags are in options tables (options.ts) with how each is parsed.
 */
import type { InferredOptionType, Options } from 'yargs';
import { TIER_NAMES } from '../contract/types.ts';
import { DEFAULTS } from '../config/defaults.ts';

/** yargs makes a repeated flag an array; for a single-valued flag the last one given wins, as its type says. */
export function lastGiven<T extends string | number>(value: T | readonly T[]): T {
  return typeof value === 'object' ? value[value.length - 1]! : value;
}

/** A flag taking one string; its default, if it has one, as the help shows it. */
export function stringFlag(describe: string, defaultDescription?: string) {
  return {
    type: 'string',
    coerce: lastGiven<string>,
    describe,
    ...(defaultDescription === undefined ? {} : { defaultDescription }),
  } as const;
}

/** A repeatable flag, each value a string. */
export function stringsFlag(describe: string) {
  return { type: 'string', array: true, default: [] as readonly string[], describe } as const;
}

export const TIERS = stringFlag(`comma-separated tiers: ${TIER_NAMES.join(', ')}`, 'all');
export const WINDOW = stringFlag('quota window, whole seconds, e.g. 3s', `${DEFAULTS.windowMs / 1000}s`);
export const SCENARIO = {
  ...stringsFlag('scenario files, repeatable'),
  defaultDescription: 'scenarios/<tier>.ts',
} as const;
export const REPORTS_OUT = stringFlag(
  'reports directory: writes <out>/<run-id>/ and <out>/latest',
  DEFAULTS.reportsDir,
);

export type ReadonlyLists<V> = V extends readonly (infer E)[] ? readonly E[] : V;

/**
 * What a command's resolver takes from yargs for these flags: a flag that may be absent is
 * optional, lists are read-only. The parsed args of a builder declaring the flags are assignable.
 */
export type FlagValues<F extends Record<string, Options>> = {
  readonly [K in keyof F as undefined extends InferredOptionType<F[K]> ? K : never]?: ReadonlyLists<
    Exclude<InferredOptionType<F[K]>, undefined>
  >;
} & {
  readonly [K in keyof F as undefined extends InferredOptionType<F[K]> ? never : K]: ReadonlyLists<
    InferredOptionType<F[K]>
  >;
};
