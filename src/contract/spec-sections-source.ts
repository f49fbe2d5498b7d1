/**
 * The recruiting API spec's numbered sections as anchors of docs/contract.md, so that a "§8" in a
 * document or a generated table links to the place the repository states it. Development code:
 * the generators of docs/ use it, the package does not ship it.
 */

/** A section of the spec: its number ("5.9"), its anchor in docs/contract.md and its title there. */
export interface SpecSection {
  readonly number: string;
  readonly anchor: string;
  readonly title: string;
}

const section = (number: string, name: string, title: string): SpecSection => ({
  number,
  anchor: `s${number.replace('.', '-')}-${name}`,
  title,
});

/** Every numbered section and rule of the spec, in its order. */
export const SPEC_SECTIONS: readonly SpecSection[] = [
  section('1', 'the-service', 'The service'),
  section('2', 'resources', 'Resources'),
  section('3', 'states', 'States'),
  section('4', 'endpoints', 'Endpoints'),
  section('5', 'authentication', 'Authentication'),
  section('5.1', 'api-key-header', 'A key on every call'),
  section('5.2', 'key-issuance', 'Where keys come from'),
  section('5.3', 'key-format', 'Key format'),
  section('5.4', 'header-shape', 'Header shape'),
  section('5.5', 'scoped-keys', 'A key holds the scopes chosen for it'),
  section('5.6', 'scopes', 'Scopes'),
  section('5.7', 'scope-list', 'The scopes an organization may grant'),
  section('5.8', 'rotation', 'Rotation'),
  section('5.9', 'revocation', 'Revocation'),
  section('6', 'events', 'Events'),
  section('7', 'errors', 'Errors'),
  section('7.1', 'quota-exceeded', 'A quota exceeded: 429'),
  section('7.2', 'retrying', 'Retrying'),
  section('8', 'limits', 'Limits'),
  section('8.1', 'over-quota', 'Over quota'),
  section('8.2', 'higher-limits', 'Higher limits'),
  section('8.3', 'revocation-propagation', 'Revocation propagates'),
  section('9', 'versioning', 'Versioning'),
];

/** Anchors inside §8 for its two tables, beside the section's own. */
export const LIMITS_ANCHORS = { tiers: 's8-tiers', headers: 's8-rate-limit-headers' } as const;

/** The section a number names; throws for one the spec does not have, so a stale citation fails the generator. */
export function specSection(number: string): SpecSection {
  const found = SPEC_SECTIONS.find((s) => s.number === number);
  if (!found)
    throw new Error(`§${number} is not a section of the recruiting API spec (src/contract/spec-sections-source.ts)`);
  return found;
}

/** `text` with every "§N" or "§N.M" made a link to its anchor in the contract document at `contractDoc` ('' for the document itself). */
export function linkSpecSections(text: string, contractDoc: string): string {
  return text.replace(
    /§(\d+(?:\.\d+)?)/g,
    (cited, number: string) => `[${cited}](${contractDoc}#${specSection(number).anchor})`,
  );
}
