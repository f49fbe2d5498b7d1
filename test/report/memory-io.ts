/** An Io for tests: output captured in memory, a clock that moves only when told. */
import { Writable } from 'node:stream';
import type { Io } from '../../src/util/io.ts';

export interface MemoryIo extends Io {
  readonly out: () => string;
  readonly err: () => string;
  /** Moves the monotonic and wall clocks forward. */
  readonly advance: (ms: number) => void;
}

function sink(chunks: string[], tty: boolean): Writable & { isTTY?: boolean; columns?: number; rows?: number } {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return Object.assign(stream, tty ? { isTTY: true, columns: 120, rows: 40 } : {});
}

export function memoryIo(options: { tty?: boolean; env?: Record<string, string>; cwd?: string } = {}): MemoryIo {
  const stdout: string[] = [];
  const stderr: string[] = [];
  let now = Date.parse('2026-03-02T10:00:00.000Z');
  let mono = 1000;
  return {
    stdout: sink(stdout, options.tty ?? false),
    stderr: sink(stderr, false),
    env: options.env ?? {},
    cwd: options.cwd ?? '/work/project',
    clock: { now: () => now, monotonic: () => mono },
    signal: new AbortController().signal,
    out: () => stdout.join(''),
    err: () => stderr.join(''),
    advance: (ms) => {
      now += ms;
      mono += ms;
    },
  };
}
