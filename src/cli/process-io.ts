/** Builds the I/O boundary from the real process: the only module that reads `process`. */
import { systemClock, type Io } from '../util/io.ts';

export function processIo(): Io {
  const controller = new AbortController();
  let interrupts = 0;
  process.on('SIGINT', () => {
    interrupts += 1;
    // First Ctrl-C: stop and write what finished. Second: leave at once.
    if (interrupts > 1) process.exit(130);
    process.stderr.write('\ntiergate: interrupted; finishing the report of what completed (Ctrl-C again to quit)\n');
    controller.abort();
  });
  // A reader that went away (`tiergate list | head`) is not an error: stop writing, quietly.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    clock: systemClock,
    signal: controller.signal,
  };
}
