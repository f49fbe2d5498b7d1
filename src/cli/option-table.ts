/**
 * A command's options as one typed table: each option's flag as yargs declares it (its type, its
 * help, the default the help shows) beside how the text given becomes a typed value, a UsageError
 * naming the flag when it cannot. The table generates the command's yargs flags (`flagsOf`) and
 * parses them all at once (`parseOptions`), so that a flag, its help and its meaning stay together.
 */
import type { InferredOptionType, Options } from 'yargs';
import type { FlagValues, ReadonlyLists } from './flags.ts';

/** What yargs hands over for flag `F`: undefined when it may be absent, lists read-only. */
export type Given<F extends Options> =
  | ReadonlyLists<Exclude<InferredOptionType<F>, undefined>>
  | (undefined extends InferredOptionType<F> ? undefined : never);

export interface OptionSpec<F extends Options, V> {
  readonly flag: F;
  /** The given text to the typed value, its mistakes a UsageError naming `--${name}`. */
  parse(given: Given<F>, name: string): V;
}

/** Any option, whatever its flag: a table's entries. */
export interface AnyOption {
  readonly flag: Options;
  parse(given: never, name: string): unknown;
}

export type OptionTable = Readonly<Record<string, AnyOption>>;

/** One option: `option(stringFlag('…'), (given, name) => count(name, given, 100))`. */
export function option<const F extends Options, V>(
  flag: F,
  parse: (given: Given<F>, name: string) => V,
): OptionSpec<F, V> {
  return { flag, parse };
}

/** An option whose value is the flag's own, as yargs parsed it (a boolean, a choice, a list). */
export const asGiven = <const F extends Options>(flag: F): OptionSpec<F, Given<F>> => option(flag, (given) => given);

export type FlagsOf<T extends OptionTable> = { readonly [K in keyof T]: T[K]['flag'] };
export type ParsedOptions<T extends OptionTable> = { readonly [K in keyof T]: ReturnType<T[K]['parse']> };

/** The yargs flags of a table. */
export function flagsOf<T extends OptionTable>(table: T): FlagsOf<T> {
  return Object.fromEntries(Object.entries(table).map(([name, spec]) => [name, spec.flag])) as FlagsOf<T>;
}

/** Every option of a table parsed from yargs' args, in the table's order: the first mistake is thrown. */
export function parseOptions<T extends OptionTable>(table: T, args: FlagValues<FlagsOf<T>>): ParsedOptions<T> {
  const given = args as Readonly<Record<string, unknown>>;
  return Object.fromEntries(
    Object.entries(table).map(([name, spec]) => [name, spec.parse(given[name] as never, name)]),
  ) as ParsedOptions<T>;
}
