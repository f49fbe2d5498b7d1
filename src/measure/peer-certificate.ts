/**
 * The certificate an HTTPS edge presents, read by a TLS handshake that verifies nothing and sends no
 * request: what a refused handshake could not say (the names it holds, its issuer, when it expires),
 * so that the user is told what is wrong with it. Nothing reaches the API, so nothing is counted.
 */
import { connect, type PeerCertificate as NodePeerCertificate } from 'node:tls';
import { isIP } from 'node:net';

export interface PeerCertificate {
  /** Its subject alternative names as Node writes them: "DNS:api.example.com, IP Address:10.0.0.1". */
  readonly names: string;
  /** Its issuer's common name (or the whole issuer where it has none). */
  readonly issuer: string;
  /** Epoch ms. */
  readonly validFrom: number;
  readonly validTo: number;
}

/** The leaf certificate `url`'s server presents; null when no handshake completes within `timeoutMs`. */
export function peerCertificate(url: string, timeoutMs: number): Promise<PeerCertificate | null> {
  const { hostname, port } = new URL(url);
  const host = hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({
      host,
      port: Number(port || 443),
      // A name, as a client verifying it would send (SNI selects the certificate); never an address.
      ...(isIP(host) === 0 ? { servername: host } : {}),
      rejectUnauthorized: false,
    });
    const done = (certificate: PeerCertificate | null) => {
      socket.destroy();
      resolve(certificate);
    };
    socket.setTimeout(timeoutMs, () => done(null));
    socket.once('error', () => done(null));
    socket.once('secureConnect', () => done(described(socket.getPeerCertificate())));
  });
}

function described(certificate: NodePeerCertificate): PeerCertificate | null {
  if (!certificate.raw) return null;
  const issuer =
    certificate.issuer?.CN ??
    Object.entries(certificate.issuer ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
  return {
    names: certificate.subjectaltname ?? '',
    issuer: String(issuer),
    validFrom: Date.parse(certificate.valid_from),
    validTo: Date.parse(certificate.valid_to),
  };
}
