import type { CliCommand } from './command.ts';

/** Every command, registered explicitly (no import side effects). */
export const commands: readonly CliCommand[] = [];
