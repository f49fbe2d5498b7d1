/**
 * A TLS handshake as a client that trusts one CA makes it: how it ended, as the code Node gives the
 * error ('ok' when the server's certificate chains to the CA and names the host dialled).
 */
import { connect } from 'node:tls';

/** `url`: https://HOST:PORT; `servername`: the name to check the certificate against (default HOST). */
export function handshake(url: string, ca: string, servername?: string): Promise<string> {
  const { hostname, port } = new URL(url);
  const host = hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port), ca, ...(servername ? { servername } : {}) }, () => {
      socket.destroy();
      resolve('ok');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      socket.destroy();
      resolve(error.code ?? error.message);
    });
  });
}
