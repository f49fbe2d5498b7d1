/**
 * The preflight, as `tiergate run --config` meets it: a deployment whose edges answer nothing (refused,
 * silent, a certificate the client refuses) stops the run before anything else: exit 2, one line per
 * such edge naming it, what happened and the fix, no key hook called (a hook server records every
 * call), no request reaching the API, no run folder left. An HTTPS edge whose CA the config names in
 * `target.ca` (relative to the config file's folder) passes, and the run goes on over TLS.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { makeCertificates, type CertificateKind } from '../../src/reference-server/certificates.ts';
import { parseConfig } from '../../src/config/load.ts';
import { runSuite } from '../../src/run/run.ts';
import { TargetUnreachableError, preflight } from '../../src/run/preflight.ts';
import { HttpProber } from '../../src/measure/http-prober.ts';
import { ObservationRecorder } from '../../src/measure/recorder.ts';
import type { Observation } from '../../src/measure/observation.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { systemClock } from '../../src/util/io.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { runCli } from '../helpers/cli.ts';
import { closedEdge } from '../helpers/deployment.ts';
import { configRun } from '../helpers/run-options.ts';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const freshKey = () => `xh_test_${[...randomBytes(32)].map((b) => ALPHANUMERIC[b % 62]).join('')}`;
const ENV = { KEY_A: freshKey(), KEY_B: freshKey() };

/** A server on loopback for this test, counting the requests it was sent; closed when the test ends. */
async function listening(server: Server): Promise<{ port: number; requests: () => number }> {
  let requests = 0;
  server.on('request', () => (requests += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as AddressInfo).port, requests: () => requests };
}

/** Answers every request 401, as an edge answers a request without a key. */
const refuseAll = (_req: IncomingMessage, res: ServerResponse) => {
  res.statusCode = 401;
  res.setHeader('content-type', 'application/json');
  res.end('{"status":"error","code":"UNAUTHENTICATED","message":"no key"}');
};

/** An HTTPS edge presenting a certificate of `kind`; its CA's PEM. */
async function httpsEdge(kind: CertificateKind) {
  const { caPem, certPem, keyPem } = await makeCertificates(kind);
  const { port, requests } = await listening(createHttpsServer({ cert: certPem, key: keyPem }, refuseAll));
  return { url: `https://127.0.0.1:${port}`, caPem, requests };
}

/**
 * A deployment's files in a folder of their own: `conf/tiergate.config.json`, and the CA beside it in
 * `conf/certs/ca.pem` named relative to it; two starter organizations, the second for revocation,
 * whose HTTP hook is a server that records every call. Returns the folder (the CLI's cwd).
 */
async function deployment(edges: readonly string[], caPem: string | null = null) {
  const dir = mkdtempSync(join(tmpdir(), 'tiergate-preflight-'));
  mkdirSync(join(dir, 'conf', 'certs'), { recursive: true });
  if (caPem !== null) writeFileSync(join(dir, 'conf', 'certs', 'ca.pem'), caPem);
  const hook = await listening(createHttpServer((_req, res) => res.end('{"key":"none"}')));
  const hookUrl = `http://127.0.0.1:${hook.port}`;
  const config = {
    target: { edges, ...(caPem === null ? {} : { ca: 'certs/ca.pem' }) },
    window: '1s',
    timeout: '2s',
    orgs: [
      { name: 'starter-a', tier: 'starter', keys: { primary: { env: 'KEY_A' } } },
      { name: 'starter-b', tier: 'starter', keys: { primary: { env: 'KEY_B' } } },
    ],
    revocation: {
      org: 'starter-b',
      hook: {
        type: 'http',
        provision: { url: `${hookUrl}/keys`, keyPath: 'key' },
        revoke: { method: 'DELETE', url: `${hookUrl}/keys/{key}` },
      },
    },
  };
  writeFileSync(join(dir, 'conf', 'tiergate.config.json'), JSON.stringify(config));
  return { dir, config, hookCalls: hook.requests };
}

const run = (dir: string, ...more: string[]) =>
  runCli(['run', '--config', 'conf/tiergate.config.json', '--out', 'reports', ...more], ENV, dir);

describe('the preflight of tiergate run --config', () => {
  it('stops on edges that refuse connections: exit 2, each edge named, no hook called, no run folder', async () => {
    const edges = [await closedEdge(), await closedEdge()];
    const d = await deployment(edges);
    const result = await run(d.dir);
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    edges.forEach((edge, i) =>
      expect(lines[i]).toBe(
        `tiergate: edge-${i} ${edge}: no answer: the connection was refused (ECONNREFUSED); check the URL and that the edge is up`,
      ),
    );
    expect(d.hookCalls()).toBe(0);
    expect(readdirSync(join(d.dir, 'reports'))).toEqual([]);
  });

  it('refuses LOAD-THRESHOLDS named against a deployment at a distance: one line, exit 2, nothing sent', async () => {
    // Never contacted: the refusal comes from the plan, before any socket opens.
    const d = await deployment(['https://api.tiergate.invalid']);
    const config = { ...d.config, target: { ...d.config.target, allowNonLoopback: true } };
    writeFileSync(join(d.dir, 'conf', 'tiergate.config.json'), JSON.stringify(config));
    const result = await run(d.dir, '--checks', 'LOAD-THRESHOLDS');
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^tiergate: --checks LOAD-THRESHOLDS: https:\/\/api\.tiergate\.invalid is not a loopback address: .*; leave it out of --checks$/,
      ),
    ]);
    expect(d.hookCalls()).toBe(0);
  });

  it('names only the edge that answers nothing: one that accepts and never answers times out', async () => {
    const answering = await listening(createHttpServer(refuseAll));
    // Reads what it is sent (so it sees the client close) and never answers.
    const silent = createNetServer((socket) => socket.resume());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => silent.close(() => resolve())));
    const edges = [`http://127.0.0.1:${answering.port}`, `http://127.0.0.1:${(silent.address() as AddressInfo).port}`];
    const d = await deployment(edges);
    const options = configRun(parseConfig({ ...d.config, timeout: '300ms' }, 'preflight test'), ENV, {
      scenarios: [defineScenario({ tier: 'starter', orgs: 2 })],
    });
    const error = await runSuite(options, captureIo().io).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(TargetUnreachableError);
    const unreachable = (error as TargetUnreachableError).unreachable;
    expect(unreachable.map((r) => [r.edge.label, r.cause, r.observation.error?.code])).toEqual([
      ['edge-1', 'no-answer', 'TIMEOUT'],
    ]);
    expect(unreachable[0]!.problem).toBe(
      'no answer: nothing came back within 300 ms (TIMEOUT); check the URL and that the edge is up',
    );
    // The answering edge got the preflight's one request and nothing more.
    expect(answering.requests()).toBe(1);
    expect(d.hookCalls()).toBe(0);
  });

  /** Each certificate a client must refuse, as the one line the run stops with. */
  const refusals: readonly [string, CertificateKind, boolean, RegExp][] = [
    [
      'a CA the config does not name',
      'valid',
      false,
      /: its certificate \(issued by tiergate reference target CA\) is not signed by a CA tiergate trusts \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\); set target\.ca to the PEM of the CA that signed it$/,
    ],
    [
      'a CA other than the one target.ca holds',
      'unknown-ca',
      true,
      /: its certificate \(issued by tiergate CA that is never trusted\) is not signed by a CA tiergate trusts \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\); target\.ca holds another CA: set it to the PEM of the CA that signed it$/,
    ],
    [
      'a name other than the host asked',
      'wrong-name',
      true,
      /: its certificate holds DNS:tiergate\.invalid, not 127\.0\.0\.1 \(ERR_TLS_CERT_ALTNAME_INVALID\); name the edge in target\.edges by one of the names it holds, or have it present a certificate for 127\.0\.0\.1$/,
    ],
    [
      'an expired certificate',
      'expired',
      true,
      /: its certificate expired at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z \(CERT_HAS_EXPIRED\); renew the edge's certificate$/,
    ],
  ];

  it.each(refusals)(
    'stops on %s: one line, exit 2, no hook called, no request reached the API',
    async (_, kind, named, line) => {
      const edge = await httpsEdge(kind);
      const d = await deployment([edge.url], named ? edge.caPem : null);
      const result = await run(d.dir);
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr.trim()).toMatch(new RegExp(`^tiergate: edge-0 ${edge.url}${line.source}`));
      expect(d.hookCalls()).toBe(0);
      expect(edge.requests()).toBe(0);
    },
  );

  it('passes an HTTPS edge whose CA target.ca names, relative to the config file, and the run goes on over TLS', async () => {
    const edge = await httpsEdge('valid');
    const d = await deployment([edge.url], edge.caPem);
    const result = await run(d.dir, '--checks', 'AUTH-MISSING');
    expect(result.stderr).not.toMatch(/edge-0/);
    expect(result.code).toBe(0);
    // The preflight's request, then AUTH-MISSING's own.
    expect(edge.requests()).toBeGreaterThan(1);
    expect(d.hookCalls()).toBe(0);
  });
});

describe('the preflight', () => {
  it('asks an edge that reset its first connection once more, and goes on where it answers', async () => {
    const server = createHttpServer(refuseAll);
    let connections = 0;
    // The first connection is reset before anything is read: a packet dropped, a balancer restarting.
    server.on('connection', (socket) => {
      connections += 1;
      if (connections === 1) socket.resetAndDestroy();
    });
    const { port } = await listening(server);
    const recorder = new ObservationRecorder(null);
    const recorded: Observation[] = [];
    recorder.onObservation((o) => recorded.push(o));
    const prober = new HttpProber({
      edges: [{ label: 'edge-0', url: `http://127.0.0.1:${port}` }],
      contract: recruitingApi,
      clock: systemClock,
      epoch: 0,
      recorder,
      timeoutMs: 2000,
      connectionsPerEdge: 2,
      signal: new AbortController().signal,
    });
    onTestFinished(() => prober.close());
    await preflight(prober, { timeoutMs: 2000, ca: null });
    expect(recorded.filter((o) => o.phase === 'reach').map((o) => o.status ?? o.error?.code)).toEqual([
      'ECONNRESET',
      401,
    ]);
  });
});
