/** An Io for tests: captured stdout/stderr, a chosen env and cwd, the real clock, an abortable signal. */
import { Writable } from 'node:stream';
import { systemClock, type Io } from '../../src/util/io.ts';

export interface CapturedIo {
  readonly io: Io;
  stdout(): string;
  stderr(): string;
  /** Simulates Ctrl-C. */
  interrupt(): void;
}

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

export function captureIo(options: { env?: Record<string, string>; cwd?: string } = {}): CapturedIo {
  const out = capture();
  const err = capture();
  const controller = new AbortController();
  return {
    io: {
      stdout: out.stream,
      stderr: err.stream,
      env: { CI: 'true', ...options.env },
      cwd: options.cwd ?? process.cwd(),
      clock: systemClock,
      signal: controller.signal,
    },
    stdout: out.text,
    stderr: err.text,
    interrupt: () => controller.abort(),
  };
}
