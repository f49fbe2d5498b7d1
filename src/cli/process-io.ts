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
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    clock: systemClock,
    signal: controller.signal,
  };
}
