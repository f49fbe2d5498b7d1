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
  // A reader that went away (`tiergate run | head`) is not an error: what was left to print is
  // dropped, and the command goes on to write its reports and exit with its own code.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.stdout.write = () => true;
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
