/**
 * Certificates made at run time for the reference target's HTTPS edges and the test bed: a private CA
 * and one leaf for loopback, good or bad in one of the ways a client must refuse. Keys are EC P-256
 * (WebCrypto, a few milliseconds each), so a target makes its own on every start and none is kept.
 */
import { KeyObject, randomBytes, webcrypto } from 'node:crypto';
import type * as X509 from '@peculiar/x509';

/**
 * What the leaf is: `valid` (signed by the CA, named for loopback), `wrong-name` (signed by the CA,
 * named for another host only), `expired` (signed by the CA, its notAfter past), `unknown-ca` (named
 * for loopback, signed by a CA that is never handed out).
 */
export const CERTIFICATE_KINDS = ['valid', 'wrong-name', 'expired', 'unknown-ca'] as const;
export type CertificateKind = (typeof CERTIFICATE_KINDS)[number];

export function isCertificateKind(name: string): name is CertificateKind {
  return (CERTIFICATE_KINDS as readonly string[]).includes(name);
}

/** PEM text: the CA a client is told to trust, and the leaf certificate and key a server presents. */
export interface CertificateSet {
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
}

/** The names a loopback client may dial: the leaf's subject alternative names. */
export const LOOPBACK_NAMES = { dns: ['localhost'], ip: ['127.0.0.1', '::1'] } as const;
/** The only name a `wrong-name` leaf carries: reserved (RFC 2606), so it never names a real host. */
export const WRONG_NAME = 'tiergate.invalid';

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
/** Room for a client whose clock runs behind the target's. */
const CLOCK_SKEW_MS = HOUR_MS;
/** A target runs for hours at most; a month covers any `tiergate serve` left running. */
const LIFETIME_MS = 30 * DAY_MS;

type X509Library = typeof X509;

/**
 * The X.509 library, loaded when certificates are first made: loading it takes a few hundred
 * milliseconds, which a target without TLS (and every other command) should not pay.
 */
async function x509Library(): Promise<X509Library> {
  // @peculiar/x509 finds its algorithms through tsyringe, which needs the Reflect metadata API first.
  await import('reflect-metadata');
  return import('@peculiar/x509');
}

interface Authority {
  readonly certificate: X509.X509Certificate;
  readonly keys: webcrypto.CryptoKeyPair;
}

interface Validity {
  readonly notBefore: Date;
  readonly notAfter: Date;
}

const newKeys = () => webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);

/** A positive 128-bit serial number (RFC 5280 §4.1.2.2: unique per CA, at most 20 octets). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

function privateKeyPem(key: webcrypto.CryptoKey): string {
  return KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }).toString();
}

async function authority(x509: X509Library, name: string, validity: Validity): Promise<Authority> {
  const keys = await newKeys();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: `CN=${name}`,
    ...validity,
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certificate, keys };
}

async function leaf(x509: X509Library, issuer: Authority, names: readonly X509.JsonGeneralName[], validity: Validity) {
  const keys = await newKeys();
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: 'CN=tiergate reference target',
    issuer: issuer.certificate.subject,
    ...validity,
    publicKey: keys.publicKey,
    signingKey: issuer.keys.privateKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names),
      await x509.AuthorityKeyIdentifierExtension.create(issuer.keys.publicKey),
    ],
  });
  return { certPem: certificate.toString('pem'), keyPem: privateKeyPem(keys.privateKey) };
}

const loopbackNames: readonly X509.JsonGeneralName[] = [
  ...LOOPBACK_NAMES.dns.map((value) => ({ type: 'dns' as const, value })),
  ...LOOPBACK_NAMES.ip.map((value) => ({ type: 'ip' as const, value })),
];

/** A new CA and a leaf of `kind` for loopback; `caPem` is the CA a client should trust. */
export async function makeCertificates(kind: CertificateKind = 'valid'): Promise<CertificateSet> {
  const x509 = await x509Library();
  const now = Date.now();
  const current: Validity = { notBefore: new Date(now - CLOCK_SKEW_MS), notAfter: new Date(now + LIFETIME_MS) };
  const ca = await authority(x509, 'tiergate reference target CA', current);
  const issuer = kind === 'unknown-ca' ? await authority(x509, 'tiergate CA that is never trusted', current) : ca;
  const names = kind === 'wrong-name' ? [{ type: 'dns' as const, value: WRONG_NAME }] : loopbackNames;
  const validity: Validity =
    kind === 'expired' ? { notBefore: new Date(now - 2 * DAY_MS), notAfter: new Date(now - DAY_MS) } : current;
  return { caPem: ca.certificate.toString('pem'), ...(await leaf(x509, issuer, names, validity)) };
}
