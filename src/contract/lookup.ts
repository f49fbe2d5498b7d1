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
