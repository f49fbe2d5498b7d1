/**
 * `tiergate list`: every check with its spec section, requirement, and what it rests on. The
 * catalogue is imported when the command runs.
 */
import { EXIT } from '../util/errors.ts';
import type { CliCommand } from './command.ts';

export const listCommand: CliCommand<object> = {
  name: 'list',
  describe: 'List every check: ID, spec section, requirement, and whether it rests on the spec or a named assumption',
  builder: (argv) => argv,
  run: async (_args, io) => {
    const [{ allChecks }, { recruitingApi }] = await Promise.all([
      import('../checks/catalogue.ts'),
      import('../contract/recruiting-api.ts'),
    ]);
    const width = Math.max(...allChecks().map((c) => c.id.length));
    for (const check of allChecks()) {
      const basis = check.assumptions.length > 0 ? `assumes ${check.assumptions.join(', ')}` : 'spec';
      io.stdout.write(
        `${check.id.padEnd(width)}  ${check.spec.padEnd(14)} ${check.requirement}\n${' '.repeat(width + 2)}${' '.repeat(15)}[${basis}]\n`,
      );
    }
    io.stdout.write(`\nAssumptions (where the spec is silent):\n`);
    for (const a of recruitingApi.assumptions) io.stdout.write(`  ${a.id}: ${a.statement}\n`);
    return EXIT.pass;
  },
};
