/**
 * The variant catalogue of the reference target: behaviours the spec allows where it is silent, but
 * that the default target does not show. Each variant keeps every promise of the spec and breaks only
 * assumptions the harness makes (src/contract: `assumptions`), so a harness that learns the limiter
 * before judging it must pass every variant, alone or combined with others and with faults.
 */
import type { AssumptionId } from '../contract/types.ts';

export const VARIANT_NAMES = [
  'first-request-windows',
  'whole-second-windows',
  'head-counts',
  'independent-class-windows',
  'counts-rejected',
  'counts-errors',
  'cap-queues',
  'synchronous-bulk',
] as const;
export type VariantName = (typeof VARIANT_NAMES)[number];

export interface VariantDefinition {
  readonly name: VariantName;
  /** What the variant target does differently, in one line. */
  readonly description: string;
  /** The contract assumptions the variant breaks. */
  readonly assumptions: readonly AssumptionId[];
}

const definitions: Readonly<Record<VariantName, Omit<VariantDefinition, 'name'>>> = {
  'first-request-windows': {
    description:
      "each organization's window of a class starts at its first counted request after the last one ended (express-rate-limit's MemoryStore); Reset rounds the end up to a whole second",
    assumptions: ['fixed-windows'],
  },
  'whole-second-windows': {
    description:
      "each organization's window of a class starts at the whole second of its first counted request after the last one ended (a store keyed by the second), so it ends up to a second before a full window after that request; Reset is that end, exactly",
    assumptions: ['fixed-windows'],
  },
  'head-counts': {
    description:
      'HEAD /recruiter/bootstrap consumes one read request, and is refused with 429 once the read quota is used up',
    assumptions: ['head-bootstrap-free'],
  },
  'independent-class-windows': {
    description:
      'read and ingest windows are both fixed and clock-aligned, but ingest windows start half a window (whole seconds) later',
    assumptions: ['fixed-windows'],
  },
  'counts-rejected': {
    description:
      'requests refused with 429 are counted too (the hit counter keeps growing past Limit); exactly Limit are still admitted',
    assumptions: ['counted-requests'],
  },
  'counts-errors': {
    description:
      'a limiter in front of scope checks and routing: 403 and 404 answers to an organization consume one read request (429 once it is used up)',
    assumptions: ['counted-requests'],
  },
  'cap-queues': {
    description:
      "a request beyond the organization's concurrency cap waits until a request in flight finishes (at most one upload's parse time and a second, then 429), instead of a 429 at once",
    assumptions: ['concurrency-status'],
  },
  'synchronous-bulk': {
    description:
      'a bulk upload is received and parsed before its answer, as long as a single upload (--parse-ms), holding its concurrency slot, instead of being queued and answered 202 at once',
    assumptions: [],
  },
};

export const variantCatalogue: readonly VariantDefinition[] = Object.freeze(
  VARIANT_NAMES.map((name) => Object.freeze({ name, ...definitions[name] })),
);

export function isVariantName(name: string): name is VariantName {
  return (VARIANT_NAMES as readonly string[]).includes(name);
}

export function variantDefinition(name: VariantName): VariantDefinition {
  return variantCatalogue.find((v) => v.name === name)!;
}

/** `--list-variants`: one line per variant, name then description. */
export function formatVariantList(): string {
  const width = Math.max(...VARIANT_NAMES.map((n) => n.length));
  return variantCatalogue.map((v) => `${v.name.padEnd(width)}  ${v.description}\n`).join('');
}
