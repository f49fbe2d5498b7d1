/** `tiergate explain [CODE]`: what a reason code means and what to change; every code without one. */
import { EXIT, UsageError } from '../util/errors.ts';
import type { CliCommand } from './command.ts';

export const explainCommand: CliCommand<{ code?: string }> = {
  name: 'explain [code]',
  describe: 'Say what a reason code means, its usual causes and what to change; without a code, list every code',
  builder: (argv) =>
    argv.positional('code', { type: 'string', describe: 'A reason code from a result, e.g. window-rolled-over' }),
  run: async (args, io) => {
    const [{ REASON_CODES, isReasonCode, reasonDefinition }, { reasonGuide }] = await Promise.all([
      import('../catalogue/reasons/index.ts'),
      import('../catalogue/reasons/guide.ts'),
    ]);
    if (args.code === undefined) {
      const width = Math.max(...REASON_CODES.map((c) => c.length));
      for (const code of REASON_CODES) io.stdout.write(`${code.padEnd(width)}  ${reasonDefinition(code).means}\n`);
      return EXIT.pass;
    }
    if (!isReasonCode(args.code))
      throw new UsageError(`explain ${args.code}: no such reason code; \`tiergate explain\` lists every code`);
    io.stdout.write(`${reasonGuide(args.code)}\n`);
    return EXIT.pass;
  },
};
