/**
 * The TLS trust every client of the deployment shares (the prober's pools, the HTTP key hooks): a
 * private CA (config `target.ca`) trusted beside the public roots.
 */
import { rootCertificates } from 'node:tls';

/**
 * undici's `connect` options trusting `ca` as well as Node's bundled roots: a `ca` given to a TLS
 * connection replaces the default roots, so they are passed along with it.
 */
export function trustingConnect(ca: string): { readonly ca: string[] } {
  return { ca: [...rootCertificates, ca] };
}
