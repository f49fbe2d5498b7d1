import { mount, type Mount } from './command.ts';
import { doctorCommand } from './doctor.ts';
import { explainCommand } from './explain.ts';
import { initCommand } from './init.ts';
import { k6Command } from './k6.ts';
import { listCommand } from './list.ts';
import { profileCommand } from './profile.ts';
import { reportCommand } from './report.ts';
import { verifyCommand } from './verify.ts';
import { runCommand } from './run.ts';
import { serveCommand } from './serve.ts';

/** Every command, registered explicitly (no import side effects); k6 mounts its own subcommands. */
export const commands: readonly Mount[] = [
  mount(runCommand),
  mount(profileCommand),
  mount(listCommand),
  mount(explainCommand),
  mount(serveCommand),
  mount(reportCommand),
  mount(verifyCommand),
  k6Command,
  mount(initCommand),
  mount(doctorCommand),
];
