/** `tiergate serve` through the real CLI entry: flag validation, --list-faults, a run until Ctrl-C, and --tls with its CA's file. */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.ts';
import { FAULT_NAMES } from '../../src/reference-server/faults.ts';
import { VARIANT_NAMES } from '../../src/reference-server/variants.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { AdminClient } from '../../src/reference-server/admin-client.ts';
import { call, sleep } from '../helpers/target.ts';
import { handshake } from '../helpers/tls-handshake.ts';

async function usage(args: readonly string[]): Promise<string> {
  const cap = captureIo({ env: {} });
  const exit = await main(['serve', ...args], cap.io);
  expect(exit).toBe(2);
  expect(cap.stdout()).toBe('');
  const lines = cap.stderr().trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('tiergate serve', () => {
  it.each([
    [['--window', 'banana'], 'tiergate: --window banana: expected a duration like 3s'],
    [['--window', '1500ms'], 'tiergate: --window 1500ms: expected whole seconds from 1s to 24h, like 3s or 1m'],
    [['--port', '70000'], 'tiergate: --port 70000: expected an integer from 0 to 65535'],
    [['--admin-port', '-1'], 'tiergate: --admin-port -1: expected an integer from 0 to 65535'],
    [['--edges', '0'], 'tiergate: --edges 0: expected a whole number from 1 to 32'],
    [['--edges', 'two'], 'tiergate: --edges two: expected a whole number from 1 to 32'],
    [['--revocation-delay', 'soon'], 'tiergate: --revocation-delay soon: expected a duration like 300ms, at most 10m'],
    [['--revocation-jitter=-5ms'], 'tiergate: --revocation-jitter -5ms: expected a duration like 100ms, at most 10m'],
    [['--parse-ms', '2m'], 'tiergate: --parse-ms 2m: expected a duration like 500 (ms), at most 1m'],
    [
      ['--max-upload', '5 parsecs'],
      'tiergate: --max-upload 5 parsecs: expected a size like 5MiB, 512KiB or 1048576 (bytes), at most 1024MiB',
    ],
    [
      ['--fault', 'quota-off-by-one', '--fault', 'gremlins'],
      'tiergate: --fault gremlins: unknown fault; tiergate serve --list-faults lists them',
    ],
    [
      ['--fault', 'head-consumes-quota'],
      'tiergate: --fault head-consumes-quota: unknown fault; tiergate serve --list-faults lists them',
    ],
    [
      ['--variant', 'head-counts,sliding-log'],
      'tiergate: --variant sliding-log: unknown variant; tiergate serve --list-variants lists them',
    ],
    [
      ['--variant', 'quota-off-by-one'],
      'tiergate: --variant quota-off-by-one: unknown variant; tiergate serve --list-variants lists them',
    ],
    [
      ['--host', '0.0.0.0'],
      'tiergate: --host 0.0.0.0: the target listens on loopback only; use 127.0.0.1, ::1 or localhost',
    ],
    [
      ['--port', '4000', '--admin-port', '4001', '--edges', '3'],
      'tiergate: invalid target options: adminPort: 4001 collides with the edge ports 4000-4002',
    ],
    [['--latency', 'far'], 'tiergate: --latency far: expected a duration like 80ms, at most 10s'],
    [['--latency', '11s'], 'tiergate: --latency 11s: expected a duration like 80ms, at most 10s'],
    [
      ['--latency', '20ms', '--jitter', '30ms'],
      'tiergate: --jitter 30ms: at most the latency (--latency 20ms); raise --latency or lower --jitter',
    ],
    [
      ['--jitter', '5ms'],
      'tiergate: --jitter 5ms: at most the latency (0ms without --latency); raise --latency or lower --jitter',
    ],
    [
      ['--tls', '--tls-certificate', 'self-signed'],
      'tiergate: --tls-certificate self-signed: expected one of valid, wrong-name, expired, unknown-ca',
    ],
    [
      ['--tls-certificate', 'expired'],
      'tiergate: --tls-certificate expired: the edges present a certificate with --tls only; add --tls',
    ],
    [['--tls-dir', 'certs'], "tiergate: --tls-dir certs: the CA's certificate is written with --tls only; add --tls"],
    [
      ['--headers', 'draft-8'],
      'tiergate: --headers draft-8: expected one of x-ratelimit, ietf, ietf-draft-7, ietf-draft-6',
    ],
  ])('%j is one clear line and exit 2', async (args, line) => {
    expect(await usage(args)).toBe(line);
  });

  it('refuses unknown flags through yargs with exit 2', async () => {
    expect(await usage(['--windw', '3s'])).toMatch(/^tiergate: (Unknown argument: windw|--windw: unknown flag)/);
  });

  it('--list-faults prints every fault with its description and exits 0', async () => {
    const cap = captureIo({ env: {} });
    expect(await main(['serve', '--list-faults'], cap.io)).toBe(0);
    const lines = cap.stdout().trimEnd().split('\n');
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual([...FAULT_NAMES]);
  });

  it('--list-variants prints every variant with its description and exits 0', async () => {
    const cap = captureIo({ env: {} });
    expect(await main(['serve', '--list-variants'], cap.io)).toBe(0);
    const lines = cap.stdout().trimEnd().split('\n');
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual([...VARIANT_NAMES]);
    expect(lines.every((l) => l.split(/\s{2,}/)[1]!.length > 20)).toBe(true);
  });

  it('prints each edge and the admin URL with a curl example, serves, and stops on Ctrl-C', async () => {
    const cap = captureIo({ env: {} });
    const exit = main(
      [
        'serve',
        '--port',
        '0',
        '--edges',
        '2',
        '--window',
        '2s',
        '--revocation-delay',
        '300ms',
        '--parse-ms',
        '0',
        '--fault',
        'scope-unenforced',
        '--variant',
        'head-counts,counts-errors',
        '--variant',
        'head-counts',
      ],
      cap.io,
    );
    let out = '';
    for (let i = 0; i < 400 && !out.includes('Ctrl-C to stop.'); i++) {
      await sleep(10);
      out = cap.stdout();
    }
    const edges = [...out.matchAll(/^ {2}edge-\d+ {2}(http:\/\/127\.0\.0\.1:\d+)$/gm)].map((m) => m[1]!);
    const adminUrl = /^ {2}admin {3}(http:\/\/127\.0\.0\.1:\d+)$/m.exec(out)?.[1];
    expect(edges).toHaveLength(2);
    expect(adminUrl).toBeDefined();
    expect(out).toContain('faults: scope-unenforced, variants: head-counts, counts-errors\n');
    expect(out).toMatch(
      new RegExp(`curl -s -X POST ${adminUrl}/admin/orgs .*&& curl -s -X POST ${adminUrl}/admin/orgs/\\$ORG/keys`),
    );

    const admin = new AdminClient(adminUrl!);
    const org = await admin.createOrg('starter', 'cli');
    const { key } = await admin.createKey(org.id, [], 'test');
    const answer = await call(edges[1]!, '/recruiter/jobs', { key });
    expect([answer.status, answer.headers['x-edge-node'], answer.limit]).toEqual([200, 'edge-1', 60]);
    // head-counts is on: each HEAD consumes a read (two in one window show it; a rollover between them is retried).
    const head = () => call(edges[0]!, '/recruiter/bootstrap', { method: 'HEAD', key });
    let heads = [await head(), await head()];
    for (let i = 0; i < 2 && heads[0]!.reset !== heads[1]!.reset; i++) heads = [await head(), await head()];
    expect(heads[0]!.reset).toBe(heads[1]!.reset);
    expect(heads[0]!.remaining - heads[1]!.remaining).toBe(1);
    expect(out).not.toContain(key);

    cap.interrupt();
    expect(await exit).toBe(0);
    expect(cap.stdout()).toContain('target stopped');
    await expect(call(edges[0]!, '/recruiter/jobs', { key })).rejects.toThrow();
  });

  it('--tls writes the CA where it said it would, the edges chain to it, and it goes with the target', async () => {
    const cap = captureIo({ env: {} });
    const exit = main(['serve', '--tls', '--latency', '40ms', '--jitter', '10ms', '--parse-ms', '0'], cap.io);
    const out = await printed(cap, 'Ctrl-C to stop.');
    const caPath = /^tiergate serve --tls: writes the CA's certificate \(no key\) to (\S+)$/m.exec(out)?.[1];
    expect(out.indexOf('writes the CA')).toBeLessThan(out.indexOf('tiergate reference target:'));
    const edge = /^ {2}edge-0 {2}(https:\/\/127\.0\.0\.1:\d+)$/m.exec(out)?.[1];
    expect(edge).toBeDefined();
    expect(out).toContain("  at a distance: each edge's round trip 40ms ± 10ms\n");
    expect(out).toContain(`The edges' certificate comes from the CA in ${caPath}. Trust it:`);
    for (const use of [`"ca": "${caPath}"`, `NODE_EXTRA_CA_CERTS=${caPath}`, `SSL_CERT_FILE=${caPath}`])
      expect(out).toContain(use);
    const ca = readFileSync(caPath!, 'utf8');
    expect(ca).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+-----END CERTIFICATE-----\n?$/);
    expect(await handshake(edge!, ca)).toBe('ok');
    const agent = new Agent({ connect: { ca } });
    const answer = await call(edge!, '/recruiter/bootstrap', { method: 'HEAD', dispatcher: agent });
    await agent.close();
    expect([answer.status, Number.isInteger(answer.limit), Number.isInteger(answer.remaining)]).toEqual([
      401,
      true,
      true,
    ]);

    cap.interrupt();
    expect(await exit).toBe(0);
    // The temp folder made for it is removed with the target.
    expect(existsSync(dirname(caPath!))).toBe(false);
  });

  it('--tls-dir names the folder, which keeps the file after the target stops', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'tiergate-serve-')), 'certs');
    const cap = captureIo({ env: {} });
    const exit = main(['serve', '--tls', '--tls-dir', dir, '--parse-ms', '0'], cap.io);
    const out = await printed(cap, 'Ctrl-C to stop.');
    expect(out).toContain(`writes the CA's certificate (no key) to ${join(dir, 'tiergate-ca.pem')}\n`);
    cap.interrupt();
    expect(await exit).toBe(0);
    expect(readFileSync(join(dir, 'tiergate-ca.pem'), 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
  });
});

/** stdout once it holds `text`: the command is waited for, bounded by the test's timeout. */
async function printed(cap: ReturnType<typeof captureIo>, text: string): Promise<string> {
  while (!cap.stdout().includes(text)) {
    if (cap.stderr() !== '') throw new Error(cap.stderr());
    await sleep(10);
  }
  return cap.stdout();
}
