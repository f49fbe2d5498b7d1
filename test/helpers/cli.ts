/** Runs the CLI in-process with a captured Io, and the shape every usage error must have. */
import { expect } from 'vitest';
import { main } from '../../src/cli.ts';
import { captureIo } from './capture-io.ts';

export async function runCli(argv: string[], env: Record<string, string> = {}, cwd?: string) {
  const captured = captureIo({ env, ...(cwd ? { cwd } : {}) });
  const code = await main(argv, captured.io);
  return { code, stdout: captured.stdout(), stderr: captured.stderr() };
}

/** Exit 2, one line on stderr mentioning the input, no stack trace. */
export function expectUsageError(result: { code: number; stderr: string }, mentions: RegExp) {
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(mentions);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}
