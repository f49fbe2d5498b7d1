/** One table per command's options: the yargs flags and their help are generated from it, and every option is parsed by it. */
import yargs from 'yargs';
import { describe, expect, it } from 'vitest';
import { asGiven, flagsOf, option, parseOptions } from '../../src/cli/option-table.ts';
import { count } from '../../src/cli/flag-values.ts';
import { stringFlag } from '../../src/cli/flags.ts';
import { TARGET_OPTIONS, TARGET_SHAPE_OPTIONS } from '../../src/cli/options.ts';
import { UsageError } from '../../src/util/errors.ts';

const TABLE = {
  trials: option(stringFlag('trials', '20'), (given, name) => count(name, given, 5)),
  fast: asGiven({ type: 'boolean', default: false, describe: 'go fast' }),
} as const;

const parsed = (argv: string[]) => yargs(argv).options(flagsOf(TABLE)).strict().parseSync();

describe('an options table', () => {
  it('generates the yargs flags, their help and the default shown, from the table', async () => {
    expect(flagsOf(TABLE)).toEqual({ trials: TABLE.trials.flag, fast: TABLE.fast.flag });
    const help = await yargs([]).options(flagsOf(TABLE)).getHelp();
    expect(help).toMatch(/--trials\s+trials\s+\[string\] \[default: 20\]/);
    expect(help).toMatch(/--fast\s+go fast\s+\[boolean\] \[default: false\]/);
  });

  it('parses every option to its typed value, an absent one as its parser says', () => {
    expect(parseOptions(TABLE, parsed(['--trials', '3', '--fast']))).toEqual({ trials: 3, fast: true });
    expect(parseOptions(TABLE, parsed([]))).toEqual({ trials: undefined, fast: false });
  });

  it('names the flag in its mistake, one line', () => {
    expect(() => parseOptions(TABLE, parsed(['--trials', '9']))).toThrow(
      new UsageError('--trials 9: expected a whole number from 1 to 5'),
    );
  });

  it("holds the target's options: a run's and profile's flags, and the reference target's shape serve takes too", () => {
    expect(Object.keys(TARGET_OPTIONS)).toEqual([
      'config',
      'tiers',
      'window',
      'timeout',
      'target-fault',
      'target-variant',
    ]);
    expect(Object.keys(TARGET_SHAPE_OPTIONS)).toEqual([
      'edges',
      'revocation-delay',
      'parse-ms',
      'tls',
      'latency',
      'jitter',
      'headers',
    ]);
    const shape = parseOptions(TARGET_SHAPE_OPTIONS, {
      edges: '3',
      'revocation-delay': '300ms',
      'parse-ms': undefined,
      tls: true,
      latency: '40ms',
      jitter: '10ms',
    });
    expect(shape).toEqual({
      edges: 3,
      'revocation-delay': 300,
      'parse-ms': undefined,
      tls: true,
      latency: 40,
      jitter: 10,
    });
  });
});
