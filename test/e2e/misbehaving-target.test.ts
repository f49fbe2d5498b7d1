/**
 * A target that is down, hangs, resets connections or sends garbage headers: a target that answers
 * nothing stops the run at its preflight (exit 2, the edge named); one that answers the preflight and
 * then misbehaves finishes on its own (per-request timeouts), never crashes, and says what it saw as
 * fail or inconclusive verdicts with evidence. Never a pass.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, type TestContext } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import { runSuite } from '../../src/run/run.ts';
import { TargetUnreachableError } from '../../src/run/preflight.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import type { RunOptions } from '../../src/run/options.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { reasonFiguresMatch } from '../helpers/explained.ts';
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

/** Answers a keyless HEAD /recruiter/bootstrap (the preflight's) with 401; every other request goes to `otherwise`. */
function answerPreflightOnly(otherwise: (req: IncomingMessage, res: ServerResponse) => void) {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'HEAD' || req.url !== '/recruiter/bootstrap' || req.headers['x-api-key'] !== undefined)
      return otherwise(req, res);
    res.statusCode = 401;
    res.end();
  };
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
    expect({ id: c.id, explained: c.reasons.length > 0 }).toEqual({ id: c.id, explained: true });
  }
  return { outcome, checks };
}

// Each test has a server of its own: they run at once.
describe.concurrent('a misbehaving target', () => {
  it('down (connection refused): the run stops at its preflight, naming the edge and the refusal', async ({
    onTestFinished,
  }) => {
    const closed = await serve(() => {}, onTestFinished);
    await closeServer(closed.server);
    const { io } = captureIo();
    const error = await runSuite(externalRun(closed.url), io).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(TargetUnreachableError);
    expect((error as TargetUnreachableError).code).toBe('TG_UNREACHABLE');
    expect((error as TargetUnreachableError).message).toMatch(new RegExp(`^edge-0 ${closed.url}: .*ECONNREFUSED`));
  }, 60_000);

  it('answers the preflight, then hangs: every request times out and the run still ends', async ({
    onTestFinished,
  }) => {
    const { outcome, checks } = await runAgainst(
      (
        await serve(
          answerPreflightOnly(() => {}),
          onTestFinished,
        )
      ).url,
    );
    // Fail (the one answer, to the keyless HEAD, carries no rate-limit headers) or inconclusive.
    expect([1, 3]).toContain(outcome.exitCode);
    expect(checks.some((c) => reasonFiguresMatch(c, /TIMEOUT/))).toBe(true);
  }, 60_000);

  it('answers the preflight, then resets connections: never a pass, with the reset shown', async ({
    onTestFinished,
  }) => {
    const resets = answerPreflightOnly((req) => req.socket.destroy());
    const { outcome, checks } = await runAgainst((await serve(resets, onTestFinished)).url);
    expect([1, 3]).toContain(outcome.exitCode);
    expect(checks.some((c) => reasonFiguresMatch(c, /ECONNRESET|SOCKET|closed/i))).toBe(true);
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
    const head = checks.find((c) => c.id === 'HEAD-BOOTSTRAP');
    expect(head?.verdict).toBe('fail');
    for (const [header, raw] of [
      ['X-RateLimit-Limit', 'lots'],
      ['X-RateLimit-Remaining', '-5'],
      ['X-RateLimit-Reset', 'soon'],
    ])
      expect(head?.reasons).toContainEqual(expect.objectContaining({ code: 'header-not-integer', header, raw }));
  }, 60_000);
});
