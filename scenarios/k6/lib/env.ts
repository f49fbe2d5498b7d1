/**
 * What a k6 run is told through `__ENV` (`k6 run -e NAME=value`, or a k6-operator runner's env):
 *
 *   BASE_URL        the API's base URL (required), e.g. http://127.0.0.1:8080
 *   TIERGATE_KEYS   comma-separated API keys, one per organization, optionally labelled:
 *                   `starter-a=xh_test_...,starter-b=xh_test_...`. The first drives the single-org
 *                   phases; a fleet phase uses as many as it names (and as many as there are).
 *   WINDOW_S        quota window length in seconds (default: the contract's 60)
 *   LIMIT           quota per window to pace by (default: the tier's published figure; set it for an
 *                   Enterprise org with custom limits)
 *
 * Keys are sent, never logged: metrics carry the label only.
 */
export interface OrgKey {
  readonly label: string;
  readonly key: string;
}

export interface K6Env {
  readonly baseUrl: string;
  readonly keys: readonly OrgKey[];
  readonly windowS: number | null;
  readonly limit: number | null;
}

function positive(name: string, raw: string | undefined): number | null {
  if (raw === undefined || raw === '') return null;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}=${raw}: expected a whole number of at least 1`);
  return n;
}

export function parseKeys(raw: string, tier: string): OrgKey[] {
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item, i) => {
      const eq = item.indexOf('=');
      // A key never contains '=', so `label=key` is unambiguous.
      return eq > 0
        ? { label: item.slice(0, eq).trim(), key: item.slice(eq + 1).trim() }
        : { label: `${tier}-${String.fromCharCode(97 + (i % 26))}${i >= 26 ? i : ''}`, key: item };
    });
}

export function readEnv(env: { readonly [name: string]: string | undefined }, tier: string): K6Env {
  const baseUrl = (env.BASE_URL ?? '').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(baseUrl))
    throw new Error('BASE_URL is not set to an http(s) URL: k6 run -e BASE_URL=http://host:port ...');
  const keys = parseKeys(env.TIERGATE_KEYS ?? '', tier);
  if (keys.length === 0)
    throw new Error('TIERGATE_KEYS is empty: k6 run -e TIERGATE_KEYS=label=key,... (one key per organization)');
  return { baseUrl, keys, windowS: positive('WINDOW_S', env.WINDOW_S), limit: positive('LIMIT', env.LIMIT) };
}
