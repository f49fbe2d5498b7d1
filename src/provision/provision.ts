/**
 * Organizations and keys for a run. On the embedded target the harness provisions its own through
 * the admin API: per tier, `scenario.orgs` organizations, each with a key holding every scope, a
 * second such key (ORG-SHARED, ROTATION) and a key holding none (SCOPE-ENFORCED), plus one
 * organization of its own for revocation trials so their probes never touch a quota check's org.
 */
import { SCOPE_NAMES, type OrgLimits, type ScopeName, type TierName } from '../contract/types.ts';
import type { AdminClient } from '../reference-server/admin-client.ts';
import type { KeyHandle, OrgHandle } from '../contract/handles.ts';

export interface ProvisionRequest {
  readonly tier: TierName;
  readonly count: number;
}

/** One organization of `tier` labelled `label`, with its three keys. */
export async function provisionOrg(
  admin: AdminClient,
  tier: TierName,
  label: string,
  limits?: Partial<OrgLimits>,
): Promise<OrgHandle> {
  const org = await admin.createOrg(tier, label, limits);
  const key = async (keyLabel: string, scopes: readonly ScopeName[]): Promise<KeyHandle> => {
    const created = await admin.createKey(org.id, scopes, 'test');
    return {
      label: `${label}/${keyLabel}`,
      key: created.key,
      id: created.id,
      scopes: scopes.length === SCOPE_NAMES.length ? 'all' : scopes,
    };
  };
  return {
    label,
    tier,
    id: org.id,
    primary: await key('primary', SCOPE_NAMES),
    secondary: await key('secondary', SCOPE_NAMES),
    unscoped: await key('unscoped', []),
    ...(limits ? { limits } : {}),
  };
}

/**
 * Every tier's organizations, labelled `starter-a`, `starter-b`, ... as the plan names them; made
 * with `limits` of their tier where given, and then held to them (OrgHandle.limits).
 */
export async function provisionTiers(
  admin: AdminClient,
  requests: readonly ProvisionRequest[],
  limits: Readonly<Partial<Record<TierName, OrgLimits>>> = {},
): Promise<OrgHandle[]> {
  const perTier = await Promise.all(
    requests.map(({ tier, count }) =>
      Promise.all(orgLabels(tier, count).map((label) => provisionOrg(admin, tier, label, limits[tier]))),
    ),
  );
  return perTier.flat();
}

/** Labels of a tier's organizations within a run: starter-a, starter-b, …. */
export function orgLabels(tier: TierName, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${tier}-${String.fromCharCode(97 + i)}`);
}
