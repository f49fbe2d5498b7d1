/** Options of the reference target: the input, its defaults (here; those the CLI shares, from src/config/defaults.ts), and the resolved, frozen form. */
import { TiergateError } from '../util/errors.ts';
import { DEFAULTS, defaultParseMs } from '../config/defaults.ts';
import {
  DEFAULT_RATE_LIMIT_DIALECT,
  isRateLimitDialectName,
  RATE_LIMIT_DIALECT_NAMES,
  type RateLimitDialectName,
} from '../contract/rate-limit-names.ts';
import { isLoopbackHost } from '../util/loopback.ts';
import { isCertificateKind, type CertificateKind } from './certificates.ts';
import { faultsOutsideDialect, isFaultName, type FaultName } from './faults.ts';
import { isVariantName, type VariantName } from './variants.ts';

/** Each option's default is in TARGET_DEFAULTS. */
export interface TargetOptions {
  /** Listen address; must be loopback. */
  host?: string;
  /** Edge i listens on port + i; 0 picks free ports. */
  port?: number;
  /** Admin listener port; 0 picks a free port. */
  adminPort?: number;
  /** Number of edge listeners sharing one state. */
  edges?: number;
  /** Quota window length, whole seconds only. */
  windowMs?: number;
  /** A revocation reaches each edge this long after it is made. */
  revocationDelayMs?: number;
  /** Extra uniform random delay per edge, drawn per revocation. */
  revocationJitterMs?: number;
  /** Simulated parse time of the single resume endpoint; holds the connection. Default: by window length (defaultParseMs). */
  parseMs?: number;
  /** Larger request bodies get 413, stating the limit. */
  maxUploadBytes?: number;
  /** Figure shown for unauthenticated traffic (per client address, per window). */
  anonymousLimit?: number;
  /** Faults to inject; see faults.ts. */
  faults?: readonly FaultName[];
  /** Conformant variants to show; see variants.ts. */
  variants?: readonly VariantName[];
  /** Every edge serves HTTPS, with a certificate from a CA made at start (RunningTarget.ca). The admin API stays plain HTTP. */
  tls?: boolean;
  /** The certificate the edges present with tls on; a bad kind shows how a client refuses it (certificates.ts). */
  tlsCertificate?: CertificateKind;
  /** The round trip a relay in front of each edge adds (distance.ts); 0: no relay. */
  latencyMs?: number;
  /** How much that round trip varies: each one-way delay is half the latency ± half the jitter. */
  jitterMs?: number;
  /** The rate-limit header dialect every response speaks (src/contract/rate-limit-dialects.ts). */
  headers?: RateLimitDialectName;
}

export type ResolvedTargetOptions = Readonly<Required<TargetOptions>>;

export const TARGET_DEFAULTS: ResolvedTargetOptions = Object.freeze({
  host: '127.0.0.1',
  port: 0,
  adminPort: 0,
  edges: DEFAULTS.edges,
  windowMs: DEFAULTS.windowMs,
  revocationDelayMs: DEFAULTS.revocationDelayMs,
  revocationJitterMs: 0,
  // The default window's; `tiergate serve` applies defaultParseMs to the window it is given.
  parseMs: defaultParseMs(DEFAULTS.windowMs),
  maxUploadBytes: 5 * 1024 * 1024,
  anonymousLimit: 1000,
  faults: Object.freeze([]) as readonly FaultName[],
  variants: Object.freeze([]) as readonly VariantName[],
  tls: false,
  tlsCertificate: 'valid',
  latencyMs: 0,
  jitterMs: 0,
  headers: DEFAULT_RATE_LIMIT_DIALECT,
});

/** What the reference target accepts, stated once: its options are checked against these, and so are the CLI's flags. */
export const TARGET_LIMITS = {
  edges: 32,
  /** Windows in whole seconds, up to a day. */
  windowMs: 24 * 3600_000,
  parseMs: 60_000,
  delayMs: 600_000,
  /** A round trip of 10 s is beyond any real network's. */
  latencyMs: 10_000,
} as const;
const MAX_EDGES = TARGET_LIMITS.edges;
const MAX_DELAY_MS = TARGET_LIMITS.delayMs;

function isInt(value: number, min: number, max: number): boolean {
  return Number.isInteger(value) && value >= min && value <= max;
}

/** The certificate and the distance: a bad certificate needs TLS, and a one-way delay never goes below 0. */
function distanceProblems(o: Required<TargetOptions>): string[] {
  const problems: string[] = [];
  if (!isCertificateKind(o.tlsCertificate)) problems.push(`tlsCertificate: unknown "${o.tlsCertificate}"`);
  else if (o.tlsCertificate !== 'valid' && !o.tls)
    problems.push(`tlsCertificate: "${o.tlsCertificate}" is a certificate the edges present with tls on; turn tls on`);
  if (!isInt(o.latencyMs, 0, TARGET_LIMITS.latencyMs))
    problems.push(`latencyMs: expected an integer 0-${TARGET_LIMITS.latencyMs}, got ${o.latencyMs}`);
  else if (!isInt(o.jitterMs, 0, o.latencyMs))
    problems.push(`jitterMs: expected an integer 0-${o.latencyMs} (at most latencyMs), got ${o.jitterMs}`);
  return problems;
}

/** Merge with the defaults and validate; every problem is reported at once. */
export function resolveTargetOptions(input: TargetOptions = {}): ResolvedTargetOptions {
  const defined = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  const merged: Required<TargetOptions> = { ...TARGET_DEFAULTS, ...defined };
  // The parse time suits the window it runs in, unless given.
  const o: Required<TargetOptions> =
    input.parseMs === undefined ? { ...merged, parseMs: defaultParseMs(merged.windowMs) } : merged;
  if (!isLoopbackHost(o.host)) {
    throw new TiergateError('TG_NOT_LOOPBACK', `target host must be a loopback address, got "${o.host}"`);
  }
  const problems: string[] = [];
  if (!isInt(o.edges, 1, MAX_EDGES)) problems.push(`edges: expected an integer 1-${MAX_EDGES}, got ${o.edges}`);
  if (!isInt(o.port, 0, 65535) || (o.port > 0 && o.port + o.edges - 1 > 65535)) {
    problems.push(`port: expected 0 or a port with room for ${o.edges} edge ports up to 65535, got ${o.port}`);
  }
  if (!isInt(o.adminPort, 0, 65535)) problems.push(`adminPort: expected an integer 0-65535, got ${o.adminPort}`);
  if (o.port > 0 && o.adminPort >= o.port && o.adminPort < o.port + o.edges) {
    problems.push(`adminPort: ${o.adminPort} collides with the edge ports ${o.port}-${o.port + o.edges - 1}`);
  }
  if (!isInt(o.windowMs, 1000, TARGET_LIMITS.windowMs) || o.windowMs % 1000 !== 0) {
    problems.push(`windowMs: expected whole seconds (a multiple of 1000, at least 1000), got ${o.windowMs}`);
  }
  if (!isInt(o.revocationDelayMs, 0, MAX_DELAY_MS)) {
    problems.push(`revocationDelayMs: expected an integer 0-${MAX_DELAY_MS}, got ${o.revocationDelayMs}`);
  }
  if (!isInt(o.revocationJitterMs, 0, MAX_DELAY_MS)) {
    problems.push(`revocationJitterMs: expected an integer 0-${MAX_DELAY_MS}, got ${o.revocationJitterMs}`);
  }
  if (!isInt(o.parseMs, 0, TARGET_LIMITS.parseMs))
    problems.push(`parseMs: expected an integer 0-${TARGET_LIMITS.parseMs}, got ${o.parseMs}`);
  if (!isInt(o.maxUploadBytes, 1, 1024 * 1024 * 1024)) {
    problems.push(`maxUploadBytes: expected a positive integer up to 1 GiB, got ${o.maxUploadBytes}`);
  }
  if (!isInt(o.anonymousLimit, 1, 1e9))
    problems.push(`anonymousLimit: expected a positive integer, got ${o.anonymousLimit}`);
  problems.push(...distanceProblems(o));
  if (!isRateLimitDialectName(o.headers))
    problems.push(`headers: expected one of ${RATE_LIMIT_DIALECT_NAMES.join(', ')}, got "${o.headers}"`);
  const unknown = o.faults.filter((f) => !isFaultName(f));
  if (unknown.length > 0) problems.push(`faults: unknown ${unknown.map((f) => `"${f}"`).join(', ')}`);
  else if (isRateLimitDialectName(o.headers))
    problems.push(...faultsOutsideDialect(o.faults, o.headers).map((p) => `faults: ${p}`));
  const unknownVariants = o.variants.filter((v) => !isVariantName(v));
  if (unknownVariants.length > 0) problems.push(`variants: unknown ${unknownVariants.map((v) => `"${v}"`).join(', ')}`);
  if (problems.length > 0) throw new TiergateError('TG_CONFIG', `invalid target options: ${problems.join('; ')}`);
  return Object.freeze({
    ...o,
    faults: Object.freeze([...new Set(o.faults)]),
    variants: Object.freeze([...new Set(o.variants)]),
  });
}
