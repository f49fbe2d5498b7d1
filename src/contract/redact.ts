/**
 * The one way keys are ever shown, in a module of its own with no Node import: the k6 revocation
 * script (scenarios/k6/revocation.ts) tags its probes with it, so a vantage's records and the run's
 * name a key alike.
 *
 * Never print or write a full key: `xh_live_…a1B2`. The prefix shown is at most two short lower-case
 * segments (`xh_live_`, `sk_`), never part of the secret; a rest too short to show four characters
 * of safely is fully masked, and a key with nothing after its prefix is masked whole.
 */
export function redactKey(key: string): string {
  const prefix = /^[a-z]{1,8}_(?:[a-z]{1,8}_)?/.exec(key)?.[0] ?? '';
  const rest = key.slice(prefix.length);
  if (rest.length === 0) return `…(${key.length} chars)`;
  if (rest.length < 12) return `${prefix}…(${rest.length} chars)`;
  return `${prefix}…${rest.slice(-4)}`;
}
