import type { Contract, Endpoint, EndpointId, QuotaClass, TierName } from './types.ts';

export function endpointById(contract: Contract, id: EndpointId): Endpoint {
  const endpoint = contract.endpoints.find((e) => e.id === id);
  if (!endpoint) throw new Error(`contract ${contract.name} has no endpoint ${id}`);
  return endpoint;
}

/** The published figure for a tier's quota class. */
export function quotaFor(contract: Contract, tier: TierName, quotaClass: QuotaClass) {
  return contract.tiers[tier][quotaClass];
}

/** Fill `:id` segments of a path template. */
export function resolvePath(template: string, id = 'demo-1'): string {
  return template.replace(/:id\b/g, encodeURIComponent(id));
}

/**
 * The quota class a request counts against, by its path (assumption quota-classes): the class of the
 * endpoint it matches, and read for anything else (HEAD /recruiter/bootstrap, unknown paths).
 */
export function quotaClassOfPath(contract: Contract, path: string): QuotaClass {
  const bare = path.split('?')[0] ?? path;
  for (const endpoint of contract.endpoints) {
    if (endpoint.quotaClass === 'ingest' && templateMatches(endpoint.path, bare)) return 'ingest';
  }
  return 'read';
}

function templateMatches(template: string, path: string): boolean {
  const a = template.split('/');
  const b = path.split('/');
  return a.length === b.length && a.every((segment, i) => segment.startsWith(':') || segment === b[i]);
}
