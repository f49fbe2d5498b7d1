/**
 * The TLS trust every client of the deployment shares (the prober's pools, the load driver, the HTTP
 * key hooks): a private CA (config `target.ca`) trusted beside the public roots.
 */
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';

/**
 * One context per CA, built once: building one parses Node's bundled roots, tens of milliseconds of
 * the event loop, which a context built per connection would cost every connection of a burst, every
 * timer of the run waiting behind them.
 */
const contexts = new Map<string, SecureContext>();

/**
 * undici's (or tls.connect's) `connect` options trusting `ca` as well as Node's bundled roots: a `ca`
 * given to a TLS connection replaces the default roots, so they are in the context with it.
 */
export function trustingConnect(ca: string): { readonly secureContext: SecureContext } {
  let secureContext = contexts.get(ca);
  if (secureContext === undefined) {
    secureContext = createSecureContext({ ca: [...rootCertificates, ca] });
    contexts.set(ca, secureContext);
  }
  return { secureContext };
}
