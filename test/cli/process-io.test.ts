/** The real process boundary: a reader that goes away early (`tiergate list | head`) ends the CLI quietly. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/tiergate.js', import.meta.url));

describe('processIo', () => {
  it('exits 0 without a stack trace when stdout is closed before it writes', async () => {
    const child = spawn(process.execPath, [BIN, 'list'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // The reader is gone before the first line: every write meets EPIPE.
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });
});
