export * from './types.ts';
export { recruitingApi } from './recruiting-api.ts';
export { rateLimitErrorBody, scopeListBody, genericErrorBody } from './error-body.ts';
export type { RateLimitErrorBody, ScopeListBody } from './error-body.ts';
export { keyFormatOf, redactKey } from './keys.ts';
export { endpointById, quotaFor, resolvePath } from './lookup.ts';
