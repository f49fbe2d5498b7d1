import type { CliCommand } from './command.ts';
import { serveCommand } from './serve.ts';
import { reportCommand } from './report.ts';
import { k6Command } from './k6.ts';

/** Every command, registered explicitly (no import side effects). */
export const commands: readonly CliCommand[] = [serveCommand, reportCommand, k6Command];
