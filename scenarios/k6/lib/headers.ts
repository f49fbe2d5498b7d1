/** k6 canonicalises header names (X-Ratelimit-Remaining, X-Edge-Node); the contract names them in lower case. */
export function headerOf(headers: { readonly [name: string]: string }, name: string): string | null {
  const wanted = name.toLowerCase();
  for (const key in headers) {
    if (key.toLowerCase() === wanted) return headers[key] ?? null;
  }
  return null;
}
