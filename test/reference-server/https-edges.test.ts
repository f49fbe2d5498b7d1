/**
 * The reference target's edges over HTTPS: trusted through the CA it reports, answering as over HTTP
 * (§8 headers on a 401), each bad certificate refused with the code Node reports for it, the admin
 * API still plain HTTP, and the same over the target's own thread. Real servers on loopback.
 */
import { X509Certificate } from 'node:crypto';
import { Agent } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { CertificateKind } from '../../src/reference-server/certificates.ts';
import { resolveTargetOptions } from '../../src/reference-server/options.ts';
import { startTargetThread } from '../../src/reference-server/thread.ts';
import { TiergateError } from '../../src/util/errors.ts';
import { call, orgWithKey, startTestTarget } from '../helpers/target.ts';
import { handshake } from '../helpers/tls-handshake.ts';

/** undici's connections, trusting `ca` only; closed after the test. */
function trusting(ca: string): Agent {
  const agent = new Agent({ connect: { ca } });
  onTestFinished(() => agent.close());
  return agent;
}

const code = (fn: () => unknown) => {
  try {
    fn();
    return 'none';
  } catch (error) {
    return error instanceof TiergateError ? error.code : String(error);
  }
};

describe('HTTPS edges', () => {
  it('serve HTTPS trusted through the CA the target reports, with the §8 headers; the admin API stays HTTP', async () => {
    const t = await startTestTarget({ tls: true, edges: 2 });
    const { ca, edges, adminUrl } = t.target;
    expect(ca).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(edges.map((url) => new URL(url).protocol)).toEqual(['https:', 'https:']);
    expect(new URL(adminUrl).protocol).toBe('http:');
    const dispatcher = trusting(ca!);
    const anonymous = await call(t.edge(1), '/recruiter/bootstrap', { method: 'HEAD', dispatcher });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['x-edge-node']).toBe('edge-1');
    expect(Number.isInteger(anonymous.limit) && Number.isInteger(anonymous.remaining)).toBe(true);
    expect(Number.isInteger(anonymous.reset)).toBe(true);
    const { key } = await orgWithKey(t.admin);
    const read = await call(t.edge(0), '/recruiter/bootstrap', { key, dispatcher });
    expect(read.status).toBe(200);
    // A load balancer's keep-alive, not Node's 5 s: warm connections survive a wait between series.
    expect(read.headers['keep-alive']).toBe('timeout=65');
  });

  it('a client that does not trust the CA is refused', async () => {
    const t = await startTestTarget({ tls: true });
    const error = await call(t.edge(), '/recruiter/bootstrap').catch((e: NodeJS.ErrnoException) => e);
    // The edges present their leaf alone: a client without the CA cannot find its issuer.
    expect((error as NodeJS.ErrnoException).code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  const refusedWith: Record<Exclude<CertificateKind, 'valid'>, string> = {
    'wrong-name': 'ERR_TLS_CERT_ALTNAME_INVALID',
    expired: 'CERT_HAS_EXPIRED',
    'unknown-ca': 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  };
  it.each(Object.entries(refusedWith))('tlsCertificate %s: the handshake fails with %s', async (kind, expected) => {
    const t = await startTestTarget({ tls: true, tlsCertificate: kind as CertificateKind });
    expect(await handshake(t.edge(), t.target.ca!)).toBe(expected);
  });

  // The thread compiles the sources (tsx) and loads the X.509 library: on a loaded machine with a
  // cold cache that has taken over half a minute.
  it("over the target's own thread: the CA crosses with the URLs, and the edges' certificate chains to it", async () => {
    const target = await startTargetThread({ tls: true, edges: 1, windowMs: 2000, parseMs: 0 });
    onTestFinished(() => target.close());
    expect(await handshake(target.edges[0]!, target.ca!)).toBe('ok');
    const answer = await call(target.edges[0]!, '/recruiter/bootstrap', { dispatcher: trusting(target.ca!) });
    expect(answer.status).toBe(401);
    expect(new X509Certificate(target.ca!).ca).toBe(true);
  }, 90_000);

  it('plain HTTP reports no CA', async () => {
    const t = await startTestTarget();
    expect(t.target.ca).toBeNull();
    expect(new URL(t.edge()).protocol).toBe('http:');
  });
});

describe('target options: TLS and distance', () => {
  it('default to plain HTTP, next door', () => {
    expect(resolveTargetOptions({})).toMatchObject({ tls: false, tlsCertificate: 'valid', latencyMs: 0, jitterMs: 0 });
  });

  it('refuse a bad certificate without TLS, an unknown one, a jitter over the latency and a latency past the limit', () => {
    expect(code(() => resolveTargetOptions({ tlsCertificate: 'expired' }))).toBe('TG_CONFIG');
    expect(code(() => resolveTargetOptions({ tls: true, tlsCertificate: 'self-made' as CertificateKind }))).toBe(
      'TG_CONFIG',
    );
    expect(code(() => resolveTargetOptions({ latencyMs: 40, jitterMs: 41 }))).toBe('TG_CONFIG');
    expect(code(() => resolveTargetOptions({ latencyMs: 10_001 }))).toBe('TG_CONFIG');
    expect(code(() => resolveTargetOptions({ latencyMs: 1.5 }))).toBe('TG_CONFIG');
    expect(
      code(() => resolveTargetOptions({ tls: true, tlsCertificate: 'expired', latencyMs: 40, jitterMs: 40 })),
    ).toBe('none');
  });
});
