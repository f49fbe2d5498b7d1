/**
 * The real process boundary: a reader that goes away early (`tiergate list | head`) is no error, and
 * a run whose reader went away still writes its reports and exits with its verdict's code.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/tiergate.js', import.meta.url));

/** Runs the CLI with its stdout closed before the first line: every write meets EPIPE. */
async function withReaderGone(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.destroy();
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  return { code, stderr };
}

describe('processIo', () => {
  it('exits 0 without a stack trace when stdout is closed before it writes', async () => {
    expect(await withReaderGone(['list'])).toEqual({ code: 0, stderr: '' });
  });

  it('a run whose reader went away still writes its reports and exits with its verdict (a failing gate stays failing)', async () => {
    const out = mkdtempSync(join(tmpdir(), 'tiergate-epipe-'));
    const args = [
      'run',
      '--tiers',
      'starter',
      '--checks',
      'AUTH-UNKNOWN',
      '--window',
      '2s',
      '--target-fault',
      'unknown-key-admitted',
      '--out',
      out,
    ];
    const { code, stderr } = await withReaderGone(args);
    expect({ code, stackTrace: /\n\s+at /.test(stderr) }).toEqual({ code: 1, stackTrace: false });
    expect(existsSync(join(out, 'latest', 'results.json'))).toBe(true);
  }, 30_000);
});
