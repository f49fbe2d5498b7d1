/**
 * Certificates made at run time: each kind as a TLS client that trusts the handed-out CA meets it,
 * on a real TLS server on loopback, refused with the code Node reports for that fault.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  CERTIFICATE_KINDS,
  makeCertificates,
  WRONG_NAME,
  type CertificateKind,
} from '../../src/reference-server/certificates.ts';
import { handshake } from '../helpers/tls-handshake.ts';

async function tlsServer(certPem: string, keyPem: string): Promise<string> {
  const server: Server = createServer({ cert: certPem, key: keyPem }, (socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** What a client trusting only the handed-out CA gets, per kind. */
const REFUSED_WITH: Record<CertificateKind, string> = {
  valid: 'ok',
  'wrong-name': 'ERR_TLS_CERT_ALTNAME_INVALID',
  expired: 'CERT_HAS_EXPIRED',
  'unknown-ca': 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
};

describe('makeCertificates', () => {
  it.each(CERTIFICATE_KINDS)('%s: a client trusting the CA gets the code Node reports for it', async (kind) => {
    const { caPem, certPem, keyPem } = await makeCertificates(kind);
    const url = await tlsServer(certPem, keyPem);
    expect(await handshake(url, caPem)).toBe(REFUSED_WITH[kind]);
  });

  it('valid: names localhost, 127.0.0.1 and ::1, is signed by the CA and is no CA itself', async () => {
    const { caPem, certPem, keyPem } = await makeCertificates('valid');
    const ca = new X509Certificate(caPem);
    const leaf = new X509Certificate(certPem);
    expect(leaf.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(ca.ca).toBe(true);
    expect(leaf.checkPrivateKey(createPrivateKey(keyPem))).toBe(true);
    // The name a client dials, not the address, is what the certificate is checked against.
    const url = await tlsServer(certPem, keyPem);
    expect(await handshake(url, caPem, 'localhost')).toBe('ok');
  });

  it('each call makes a new CA, and a leaf is trusted only through its own', async () => {
    const first = await makeCertificates('valid');
    const second = await makeCertificates('valid');
    expect(first.caPem).not.toBe(second.caPem);
    const url = await tlsServer(first.certPem, first.keyPem);
    expect(await handshake(url, second.caPem)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  it('wrong-name names only a reserved host; expired ended before now; unknown-ca is not signed by the CA', async () => {
    const wrong = new X509Certificate((await makeCertificates('wrong-name')).certPem);
    expect(wrong.subjectAltName).toBe(`DNS:${WRONG_NAME}`);
    const expired = new X509Certificate((await makeCertificates('expired')).certPem);
    expect(new Date(expired.validTo).getTime()).toBeLessThan(Date.now());
    const unknown = await makeCertificates('unknown-ca');
    expect(new X509Certificate(unknown.certPem).checkIssued(new X509Certificate(unknown.caPem))).toBe(false);
  });
});
