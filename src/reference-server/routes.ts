/** Routing from the contract's §4 endpoint table: path templates with `:id` segments. */
import type { Endpoint } from '../contract/types.ts';

export type RouteMatch =
  | { readonly kind: 'found'; readonly endpoint: Endpoint; readonly id: string | null }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'method-not-allowed'; readonly allow: readonly string[] };

interface CompiledRoute {
  readonly endpoint: Endpoint;
  readonly segments: readonly string[];
}

export interface RouteTable {
  readonly routes: readonly CompiledRoute[];
  /** `METHOD path` of every template without `:id`, answered without a scan (exact segments win anyway). */
  readonly exact: ReadonlyMap<string, RouteMatch>;
}

export function compileRoutes(endpoints: readonly Endpoint[]): RouteTable {
  const routes = endpoints.map((endpoint) => ({ endpoint, segments: endpoint.path.split('/') }));
  const exact = new Map<string, RouteMatch>();
  for (const { endpoint, segments } of routes) {
    const key = `${endpoint.method} ${endpoint.path}`;
    if (!segments.includes(':id') && !exact.has(key))
      exact.set(key, Object.freeze({ kind: 'found', endpoint, id: null }));
  }
  return { routes, exact };
}

/** The `:id` value if `path` fits the template ('' when it has none), or null. */
function fit(route: CompiledRoute, parts: readonly string[]): string | null {
  if (parts.length !== route.segments.length) return null;
  let id = '';
  for (let i = 0; i < parts.length; i++) {
    const template = route.segments[i]!;
    const part = parts[i]!;
    if (template === ':id') {
      if (part === '') return null;
      id = part;
    } else if (template !== part) return null;
  }
  return id;
}

function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** Exact segments win over `:id` (POST /recruiter/jobs/create is jobs-create, not an update of "create"). */
export function matchRoute(table: RouteTable, method: string, path: string): RouteMatch {
  const exact = table.exact.get(`${method} ${path}`);
  if (exact) return exact;
  const parts = path.split('/');
  const allow = new Set<string>();
  let best: { endpoint: Endpoint; id: string } | null = null;
  for (const route of table.routes) {
    const id = fit(route, parts);
    if (id === null) continue;
    allow.add(route.endpoint.method);
    if (route.endpoint.method !== method) continue;
    if (!best || (best.id !== '' && id === '')) best = { endpoint: route.endpoint, id };
  }
  if (best) {
    if (best.id === '') return { kind: 'found', endpoint: best.endpoint, id: null };
    const id = decodeSegment(best.id);
    return id === null ? { kind: 'not-found' } : { kind: 'found', endpoint: best.endpoint, id };
  }
  if (allow.size > 0) return { kind: 'method-not-allowed', allow: [...allow].sort() };
  return { kind: 'not-found' };
}
