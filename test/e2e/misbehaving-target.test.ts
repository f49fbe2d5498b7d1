/**
 * A target that is down, hangs, resets connections or sends garbage headers: the run finishes on
 * its own (per-request timeouts), never crashes, and says what it saw as fail or inconclusive
 * verdicts with evidence. Never a pass.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, type TestContext } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import { runSuite } from '../../src/run/run.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import type { RunOptions } from '../../src/run/options.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { configRun } from '../helpers/run-options.ts';
import { fileText } from '../helpers/run-files.ts';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const freshKey = () => `xh_test_${[...randomBytes(32)].map((b) => ALPHANUMERIC[b % 62]).join('')}`;

/** A misbehaving server on loopback for one test; closed when the test finishes. */
async function serve(
  handler: Parameters<typeof createServer>[1],
  onTestFinished: TestContext['onTestFinished'],
): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  onTestFinished(() => closeServer(server));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function closeServer(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

function externalRun(edge: string): RunOptions {
  const env = { KEY_A: freshKey(), KEY_A2: freshKey(), KEY_B: freshKey() };
  const config = parseConfig(
    {
      target: { edges: [edge] },
      window: '1s',
      timeout: '300ms',
      orgs: [
        { name: 'starter-a', tier: 'starter', keys: { primary: { env: 'KEY_A' }, secondary: { env: 'KEY_A2' } } },
        { name: 'starter-b', tier: 'starter', keys: { primary: { env: 'KEY_B' } } },
      ],
    },
    'test config',
  );
  return configRun(config, env, { scenarios: [defineScenario({ tier: 'starter', orgs: 2 })] });
}

async function runAgainst(edge: string, mayPass: readonly string[] = ['AUTH-KEY-FORMAT']) {
  const { io } = captureIo();
  const outcome = await runSuite(externalRun(edge), io);
  const checks = outcome.results!.checks;
  expect(checks.length).toBeGreaterThan(0);
  expect(checks.filter((c) => c.verdict === 'pass' && !mayPass.includes(c.id)).map((c) => c.id)).toEqual([]);
  for (const c of checks.filter((r) => r.verdict === 'fail' || r.verdict === 'inconclusive')) {
    expect({
      id: c.id,
      hasEvidenceOrReason: c.evidence.length > 0 || c.notes.length > 0 || c.actual.length > 0,
    }).toEqual({ id: c.id, hasEvidenceOrReason: true });
  }
  return { outcome, checks };
}

// Each test has a server of its own: they run at once.
describe.concurrent('a misbehaving target', () => {
  it('down (connection refused): inconclusive, naming the refusal', async ({ onTestFinished }) => {
    const closed = await serve(() => {}, onTestFinished);
    await closeServer(closed.server);
    const { outcome, checks } = await runAgainst(closed.url);
    expect(outcome.exitCode).not.toBe(0);
    expect(checks.some((c) => /ECONNREFUSED/.test(`${c.actual} ${c.notes.join(' ')}`))).toBe(true);
  }, 60_000);

  it('hangs: every request times out and the run still ends', async ({ onTestFinished }) => {
    const { outcome, checks } = await runAgainst((await serve(() => {}, onTestFinished)).url);
    expect(outcome.exitCode).toBe(3);
    expect(checks.some((c) => /TIMEOUT/.test(`${c.actual} ${c.notes.join(' ')}`))).toBe(true);
  }, 60_000);

  it('resets connections: inconclusive with the reset shown', async ({ onTestFinished }) => {
    const { outcome, checks } = await runAgainst((await serve((req) => req.socket.destroy(), onTestFinished)).url);
    expect(outcome.exitCode).toBe(3);
    expect(checks.some((c) => /ECONNRESET|SOCKET|closed/i.test(`${c.actual} ${c.notes.join(' ')}`))).toBe(true);
  }, 60_000);

  it('echoes the key it was sent: no full key reaches the observations or any report', async ({ onTestFinished }) => {
    const edge = await serve((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.statusCode = 401;
      res.end(JSON.stringify({ status: 'error', you_sent: req.headers['x-api-key'] ?? null }));
    }, onTestFinished);
    // Everything is refused with 401, so the AUTH checks rightly pass.
    const { outcome } = await runAgainst(edge.url, [
      'AUTH-KEY-FORMAT',
      'AUTH-MISSING',
      'AUTH-MALFORMED',
      'AUTH-UNKNOWN',
    ]);
    const dir = outcome.runDir!;
    for (const file of readdirSync(dir)) {
      expect({ file, key: /xh_test_[A-Za-z0-9]{32}/.exec(fileText(join(dir, file)))?.[0] ?? null }).toEqual({
        file,
        key: null,
      });
    }
  }, 60_000);

  it('garbage rate-limit headers: the header checks fail with the values quoted', async ({ onTestFinished }) => {
    const edge = await serve((_req, res) => {
      res.setHeader('date', 'not a date');
      res.setHeader('x-ratelimit-limit', 'lots');
      res.setHeader('x-ratelimit-remaining', '-5');
      res.setHeader('x-ratelimit-reset', 'soon');
      res.setHeader('content-type', 'application/json');
      res.end('{"status": "success"');
    }, onTestFinished);
    // The headers are there, only their values are garbage: HDR-PRESENT (presence only) rightly passes.
    const { outcome, checks } = await runAgainst(edge.url, ['AUTH-KEY-FORMAT', 'HDR-PRESENT']);
    expect(outcome.exitCode).toBe(1);
    const failed = new Map(checks.filter((c) => c.verdict === 'fail').map((c) => [c.id, c.actual]));
    expect(failed.get('AUTH-MISSING')).toBeDefined();
    expect(failed.get('HEAD-BOOTSTRAP')).toMatch(/lots|-5|soon/);
  }, 60_000);
});
