/** Load and tests send traffic only to loopback: 127.0.0.0/8, localhost, ::1 (and 127/8 mapped into IPv6). */
import { isIPv4, isIPv6 } from 'node:net';

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  // Only the literal name: `*.localhost` goes to DNS here (glibc), and DNS may answer anything.
  if (host === 'localhost') return true;
  if (isIPv4(host)) return host.startsWith('127.');
  if (!isIPv6(host)) return false;
  // The URL parser writes every IPv6 form one way: ::1, and ::ffff:7f00:1 for ::ffff:127.0.0.1.
  let canonical: string;
  try {
    canonical = new URL(`http://[${host}]/`).hostname.slice(1, -1);
  } catch {
    return false; // a zone id (fe80::1%eth0) is never loopback, and URLs cannot carry one
  }
  if (canonical === '::1') return true;
  const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(canonical);
  return mapped !== null && parseInt(mapped[1]!, 16) >> 8 === 0x7f;
}

export function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}
