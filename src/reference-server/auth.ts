/** §5 authentication: the X-API-Key header against issued, unrevoked keys, as seen from one edge. */
import type { IncomingHttpHeaders } from 'node:http';
import { keyFormatOf } from '../contract/keys.ts';
import { SCOPE_NAMES } from '../contract/types.ts';
import { isRevokedOn } from './revocation.ts';
import type { TargetRuntime } from './runtime.ts';
import type { ApiKeyRecord, Org } from './state.ts';

export type AuthFailure = 'missing' | 'malformed' | 'unknown' | 'revoked';

export type AuthResult =
  | { readonly ok: true; readonly org: Org; readonly key: ApiKeyRecord }
  | { readonly ok: false; readonly reason: AuthFailure };

const MESSAGES: Record<AuthFailure, string> = {
  missing: 'missing API key: send it in the X-API-Key header',
  malformed: 'malformed API key: expected xh_live_ or xh_test_ followed by 32 alphanumeric characters',
  unknown: 'unknown API key',
  revoked: 'this API key has been revoked',
};

export function authFailureMessage(reason: AuthFailure): string {
  return MESSAGES[reason];
}

/** `unknown-key-admitted`: the record an unknown key borrows, with every scope, in the first org. */
function guestKey(org: Org, now: number): ApiKeyRecord {
  return {
    id: 'key_guest',
    orgId: org.id,
    env: 'test',
    scopes: new Set(SCOPE_NAMES),
    redacted: '(guest)',
    hash: '',
    createdAt: now,
    revocation: null,
  };
}

export function authenticate(rt: TargetRuntime, headers: IncomingHttpHeaders, edge: number, now: number): AuthResult {
  const raw = headers[rt.contract.headers.apiKey];
  if (raw === undefined || raw === '') return { ok: false, reason: 'missing' };
  if (typeof raw !== 'string' || keyFormatOf(rt.contract, raw) === null) return { ok: false, reason: 'malformed' };
  const key = rt.state.findKey(raw);
  if (!key) {
    const first = rt.state.orgs()[0];
    if (first && rt.faults.has('unknown-key-admitted')) return { ok: true, org: first, key: guestKey(first, now) };
    return { ok: false, reason: 'unknown' };
  }
  if (isRevokedOn(key.revocation, edge, now)) return { ok: false, reason: 'revoked' };
  const org = rt.state.org(key.orgId);
  return org ? { ok: true, org, key } : { ok: false, reason: 'unknown' };
}
