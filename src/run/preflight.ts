/**
 * The preflight: before a run spends anything (no key hook called, no organization provisioned, no
 * quota spent), every edge is asked once without a key: HEAD /recruiter/bootstrap, which a server
 * answers 401 and counts for no organization (§5.1). An edge that answers nothing stops the run at
 * once, one line each naming the edge, what happened and the fix: a deployment that cannot be
 * reached is told in seconds, not after minutes of checks that each find no answer. Any HTTP answer
 * passes (what it says is for the checks to judge). The answers are observations like every other,
 * tagged CONNECT, and leave a connection open to each edge for the run.
 */
import { endpointById } from '../contract/lookup.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import type { Edge, HttpProber, ProbeTags } from '../measure/http-prober.ts';
import type { Observation } from '../measure/observation.ts';
import { peerCertificate, type PeerCertificate } from '../measure/peer-certificate.ts';
import { ObservationRecorder } from '../measure/recorder.ts';
import { TiergateError } from '../util/errors.ts';
import type { Io } from '../util/io.ts';
import { sessionProber, type TargetSession } from './target-session.ts';

/**
 * How long the preflight waits for an edge (the run's timeout where that is shorter): long enough for
 * a TCP and TLS handshake and a 401 across an ocean, short enough that a run against a deployment
 * that answers nothing ends within 10 s.
 */
export const PREFLIGHT_TIMEOUT_MS = 4000;

/** Why an edge did not answer: its certificate, its TLS, or nothing came back at all. */
export type UnreachableCause =
  | 'unknown-ca'
  | 'wrong-name'
  | 'expired'
  | 'not-yet-valid'
  | 'tls'
  | 'not-http'
  | 'no-answer';

/** Node's certificate verification codes (OpenSSL's, and the host name check's), by what they mean. */
const CERTIFICATE_CAUSES: Readonly<Record<string, UnreachableCause>> = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'unknown-ca',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'unknown-ca',
  UNABLE_TO_GET_ISSUER_CERT: 'unknown-ca',
  SELF_SIGNED_CERT_IN_CHAIN: 'unknown-ca',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'unknown-ca',
  CERT_UNTRUSTED: 'unknown-ca',
  ERR_TLS_CERT_ALTNAME_INVALID: 'wrong-name',
  CERT_HAS_EXPIRED: 'expired',
  CERT_NOT_YET_VALID: 'not-yet-valid',
};

function causeOf(code: string): UnreachableCause {
  const certificate = CERTIFICATE_CAUSES[code];
  if (certificate) return certificate;
  if (/^(ERR_SSL_|ERR_TLS_|EPROTO$)/.test(code)) return 'tls';
  return code === 'MALFORMED_RESPONSE' ? 'not-http' : 'no-answer';
}

export interface EdgeReach {
  readonly edge: Edge;
  readonly observation: Observation;
  /** Why it answered nothing; null when it answered (any status). */
  readonly cause: UnreachableCause | null;
  /** What happened and the fix, in words; null when it answered. */
  readonly problem: string | null;
}

/** Edges that answered nothing: the run stops before anything else (exit code 2), one line per edge. */
export class TargetUnreachableError extends TiergateError {
  readonly unreachable: readonly EdgeReach[];
  constructor(unreachable: readonly EdgeReach[]) {
    super('TG_UNREACHABLE', unreachable.map((r) => `${r.edge.label} ${r.edge.url}: ${r.problem}`).join('\n'));
    this.unreachable = unreachable;
  }
}

export interface ReachOptions {
  /** The run's per-request timeout; the preflight's own is shorter where it is longer. */
  readonly timeoutMs: number;
  /** Whether the config names a CA (`target.ca`): the fix for an unknown CA says which file to change. */
  readonly ca: string | null;
}

const PREFLIGHT_TAGS: ProbeTags = { check: 'CONNECT', phase: 'reach', tier: null, org: null };

/** Failures the preflight asks again once: a reset, a broken pipe, a name lookup that failed for a moment. */
const TRANSIENT: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'EAI_AGAIN']);

/** Round trips timed per edge once it answered, on the connection the first request opened. */
const ROUND_TRIPS_PER_EDGE = 3;
const ROUND_TRIP_TAGS: ProbeTags = { check: 'CONNECT', phase: 'round-trip', tier: null, org: null };

/**
 * Asks every edge once; resolves with their answers, or throws TargetUnreachableError naming each
 * that gave none. Then times a few round trips per edge on the connection now open, so that the run
 * plans from the network before anything else is sent (src/measure/network.ts).
 */
export async function preflight(prober: HttpProber, options: ReachOptions): Promise<Observation[]> {
  const reached = await Promise.all(prober.edges.map((edge) => reachEdge(prober, edge, options, PREFLIGHT_TAGS)));
  const unreachable = reached.filter((r) => r.cause !== null);
  if (unreachable.length > 0) throw new TargetUnreachableError(unreachable);
  const head = endpointById(recruitingApi, 'bootstrap-head');
  const timed = await Promise.all(
    prober.edges.map(async (edge) => {
      const trips: Observation[] = [];
      for (let i = 0; i < ROUND_TRIPS_PER_EDGE; i++) {
        // undici lends an answered connection again a turn later: the next request then reuses it.
        await new Promise((resolve) => setImmediate(resolve));
        trips.push(await prober.send(edge, { method: head.method, path: head.path, key: null }, ROUND_TRIP_TAGS));
      }
      return trips;
    }),
  );
  return [...reached.map((r) => r.observation), ...timed.flat()];
}

/** The preflight on a prober of its own, one connection per edge, for an engine whose traffic goes otherwise (k6). */
export async function preflightSession(session: TargetSession, io: Io, timeoutMs: number): Promise<void> {
  const recorder = new ObservationRecorder(null);
  const prober = sessionProber(session, io, { recorder, timeoutMs, connectionsPerEdge: 1 });
  try {
    await preflight(prober, { timeoutMs, ca: session.ca });
  } finally {
    await prober.close();
  }
}

/** One keyless HEAD /recruiter/bootstrap to `edge`, and, where nothing came back, why and what to do. */
export async function reachEdge(
  prober: HttpProber,
  edge: Edge,
  options: ReachOptions,
  tags: ProbeTags,
): Promise<EdgeReach> {
  const head = endpointById(recruitingApi, 'bootstrap-head');
  const timeoutMs = reachTimeoutMs(options);
  const ask = () => prober.send(edge, { method: head.method, path: head.path, key: null }, tags, timeoutMs);
  let observation = await ask();
  // A connection reset or a name lookup that failed for a moment is asked again, once: a CI run must
  // not stop on one dropped packet. A refusal, a timeout or a certificate is the edge's answer.
  if (TRANSIENT.has(observation.error?.code ?? '')) observation = await ask();
  const code = observation.error?.code ?? 'REQUEST_FAILED';
  // Ctrl-C is the user's, not the edge's: the run goes on to report that it was interrupted.
  if (observation.status !== null || code === 'INTERRUPTED') return { edge, observation, cause: null, problem: null };
  const cause = causeOf(code);
  const certificate = ABOUT_THE_CERTIFICATE.has(cause) ? await peerCertificate(edge.url, timeoutMs) : null;
  return { edge, observation, cause, problem: FIXES[cause]({ edge, observation, code, certificate, options }) };
}

interface Unanswered {
  readonly edge: Edge;
  readonly observation: Observation;
  readonly code: string;
  /** The certificate the edge presents, where it has one and a handshake that verifies nothing read it. */
  readonly certificate: PeerCertificate | null;
  readonly options: ReachOptions;
}

type Fix = (u: Unanswered) => string;

const reachTimeoutMs = (options: ReachOptions) => Math.min(options.timeoutMs, PREFLIGHT_TIMEOUT_MS);
const hostOf = (edge: Edge) => new URL(edge.url).hostname.replace(/^\[|\]$/g, '');
const isoTime = (ms: number | undefined) => (ms === undefined || Number.isNaN(ms) ? null : new Date(ms).toISOString());

/** What a connection that gave no HTTP answer met, in words. */
const NOTHING_BACK: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve (for now)',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
  CONNECT_TIMEOUT: 'no connection was made',
  TIMEOUT: 'nothing came back',
};

/** Causes whose words say what the refused certificate holds, against what was asked. */
const ABOUT_THE_CERTIFICATE: ReadonlySet<UnreachableCause> = new Set([
  'unknown-ca',
  'wrong-name',
  'expired',
  'not-yet-valid',
]);

/** What happened, and the fix, per cause. */
const FIXES: Readonly<Record<UnreachableCause, Fix>> = {
  'unknown-ca': ({ code, certificate, options }) =>
    `its certificate${certificate ? ` (issued by ${certificate.issuer})` : ''} is not signed by a CA tiergate trusts (${code}); ${options.ca === null ? 'set target.ca' : 'target.ca holds another CA: set it'} to the PEM of the CA that signed it`,
  'wrong-name': ({ edge, code, certificate }) =>
    `its certificate holds ${certificate?.names || 'no name'}, not ${hostOf(edge)} (${code}); name the edge in target.edges by one of the names it holds, or have it present a certificate for ${hostOf(edge)}`,
  expired: ({ code, certificate }) => {
    const when = isoTime(certificate?.validTo);
    return `its certificate expired${when ? ` at ${when}` : ''} (${code}); renew the edge's certificate`;
  },
  'not-yet-valid': ({ code, certificate }) => {
    const when = isoTime(certificate?.validFrom);
    return `its certificate is valid only from ${when ?? 'a later time'} (${code}); check this machine's clock, or the certificate's dates`;
  },
  tls: ({ code, observation }) =>
    `the TLS handshake failed (${code}: ${observation.error?.message ?? ''}); check that the edge serves HTTPS at this port, or name it http://`,
  'not-http': ({ observation }) =>
    `the answer is not HTTP (${observation.error?.message ?? ''}); check the URL's scheme and port (https:// for an edge that speaks TLS)`,
  'no-answer': ({ code, observation, options }) => {
    const within = code === 'TIMEOUT' || code === 'CONNECT_TIMEOUT' ? ` within ${reachTimeoutMs(options)} ms` : '';
    const what = NOTHING_BACK[code] ?? observation.error?.message ?? 'nothing came back';
    return `no answer: ${what}${within} (${code}); check the URL and that the edge is up`;
  },
};
