/**
 * `tiergate doctor`: whether a deployment's config will carry a long run, told in a few seconds.
 * Every edge answers; every key the config names is accepted and holds what its role needs (primary:
 * every scope; secondary: reads, for ORG-SHARED; unscoped: refused with 403 on a scoped endpoint);
 * no key stands in for two; a read figure an organization declares is the X-RateLimit-Limit its reads
 * are answered with; the keyed answers carry the rate-limit header dialect the config declares
 * (doctor-dialect.ts); and the server clock's offset from ours, from the Date headers, with its
 * uncertainty. Each finding names the input and, for a problem, the fix.
 *
 * Few requests, bounded: one per edge without a key, and per key at most one per scoped endpoint
 * (seven for a primary key, one for the others), one after another. Each is a read, or a write the
 * server cannot act on (malformed JSON, an empty file): nothing is created, and a server that checks
 * the body before admitting counts nothing for it. Nothing is retried.
 */
import { endpointById, quotaClassOfPath } from '../contract/lookup.ts';
import { redactKey } from '../contract/keys.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import type { Endpoint } from '../contract/types.ts';
import { KEY_ROLES, type Config, type KeyRole } from '../config/schema.ts';
import { EXIT } from '../util/errors.ts';
import type { Io } from '../util/io.ts';
import type { Edge, HttpProber } from '../measure/http-prober.ts';
import { isAdmittedStatus, type Observation } from '../measure/observation.ts';
import { ObservationRecorder } from '../measure/recorder.ts';
import { clockEstimate, narrowOffset, type ClockEstimate, type OffsetInterval } from '../measure/server-clock.ts';
import { inertRequest } from '../measure/requests.ts';
import type { ExternalTarget } from './options.ts';
import { openTargetSession, sessionProber } from './target-session.ts';
import { reachEdge, type ReachOptions } from './preflight.ts';
import {
  DEFAULT_RATE_LIMIT_DIALECT,
  type RateLimitDialectName,
  type RawHeaderValues,
} from '../contract/rate-limit-dialects.ts';
import { dialectsSent } from '../contract/rate-limit-sent.ts';
import { dialectFindings, type DialectFindingData, type HeardDialects } from './doctor-dialect.ts';

export interface DoctorFinding {
  readonly ok: boolean;
  /** The input it is about, as the config names it: `target.edges.1 http://…`, `orgs.0.keys.primary (XH_…: xh_test_…a1B2)`. */
  readonly input: string;
  /** What was seen and, for a problem, the fix. */
  readonly detail: string;
  /** The header dialect finding's figures: the dialect declared and those an edge sent. */
  readonly headers?: DialectFindingData;
}

export interface DoctorOptions {
  /** The rate-limit header dialect to expect; absent: the config's `headers`, else §8's X-RateLimit-*. */
  readonly headers?: RateLimitDialectName;
}

export interface DoctorOutcome {
  readonly findings: readonly DoctorFinding[];
  /** The server clock's offset from ours, when any response carried a Date. */
  readonly clock: ClockEstimate | null;
  /** Requests sent in all. */
  readonly requests: number;
  /** 0 when every finding is ok, 1 when one is a problem, 130 when interrupted. */
  readonly exitCode: number;
}

const contract = recruitingApi;
/** Connections per edge: organizations are checked at once, this many at a time. */
const PARALLEL_ORGS = 4;
const ok = (input: string, detail: string): DoctorFinding => ({ ok: true, input, detail });
const problem = (input: string, detail: string): DoctorFinding => ({ ok: false, input, detail });

/** A key as the config names it, and where: its secret stays in `key`, only ever shown redacted. */
interface NamedKey {
  readonly path: string;
  readonly variable: string;
  readonly org: string;
  readonly role: KeyRole;
  readonly key: string;
}

const inputOf = (k: NamedKey) => `${k.path} (${k.variable}: ${redactKey(k.key)})`;
const call = (endpoint: Endpoint) => `${endpoint.method} ${endpoint.path}`;

export async function runDoctor(target: ExternalTarget, io: Io, options: DoctorOptions = {}): Promise<DoctorOutcome> {
  const config = target.config;
  const session = await openTargetSession({ target, windowMs: config.window }, io.env);
  const recorder = new ObservationRecorder(null);
  let offset: OffsetInterval | null = null;
  let answered = 0;
  // A few per edge and key: kept, for the Limits the declared figures are compared with.
  const observations: Observation[] = [];
  recorder.onObservation((o) => {
    offset = narrowOffset(offset, o);
    if (o.status !== null) answered += 1;
    observations.push(o);
  });
  const prober = sessionProber(session, io, { recorder, timeoutMs: config.timeout, connectionsPerEdge: PARALLEL_ORGS });
  try {
    const reached = await Promise.all(
      prober.edges.map((edge, i) => reach(prober, edge, i, { timeoutMs: config.timeout, ca: session.ca })),
    );
    const answering = reached.findIndex((f) => f.ok);
    const at = answering < 0 ? null : { edge: prober.edges[answering]!, origin: config.target.edges[answering]! };
    // Every keyed answer read whole: which header dialects the deployment sends, whatever is declared.
    const heard: HeardDialects[] = [];
    const hear = (edge: Edge) => (headers: RawHeaderValues) =>
      heard.push({ edge: edge.label, sent: dialectsSent(headers) });
    const keys = await keyFindings(prober, at, namedKeys(target), hear);
    const clock = clockEstimate(offset);
    const findings = [
      ...reached,
      ...keys,
      ...dialectFindings(options.headers ?? config.headers?.dialect ?? DEFAULT_RATE_LIMIT_DIALECT, heard),
      ...declaredReadFindings(config, observations),
      clockFinding(clock, answered),
    ];
    const exitCode = io.signal.aborted ? EXIT.interrupted : findings.every((f) => f.ok) ? EXIT.pass : EXIT.fail;
    return { findings, clock, requests: recorder.count, exitCode };
  } finally {
    await prober.close();
    await session.close();
    await recorder.close();
  }
}

/** The keys the config names, in its order, with their secrets as resolved from the environment. */
function namedKeys(target: ExternalTarget): NamedKey[] {
  return target.config.orgs.flatMap((org, i) =>
    KEY_ROLES.flatMap((role) => {
      const ref = org.keys[role];
      const key = target.orgs[i]![role];
      return key && typeof ref === 'object'
        ? [{ path: `orgs.${i}.keys.${role}`, variable: ref.env, org: org.name, role, key: key.key }]
        : [];
    }),
  );
}

/**
 * One keyless HEAD per edge, as the run's preflight asks it (the same words for what went wrong): any
 * answer of the API is reachable; no answer, or one from something else, is not.
 */
async function reach(prober: HttpProber, edge: Edge, i: number, options: ReachOptions): Promise<DoctorFinding> {
  const head = endpointById(contract, 'bootstrap-head');
  const tags = { check: 'DOCTOR', phase: 'reach', tier: null, org: null } as const;
  const { observation: o, problem: unreachable } = await reachEdge(prober, edge, options, tags);
  const input = `target.edges.${i} ${edge.url}`;
  if (o.status === null) return problem(input, unreachable ?? 'no answer');
  const took = `${Math.round((o.headersAt ?? o.doneAt) - o.sentAt)} ms`;
  if (o.status === 404 || o.status === 405 || o.status >= 500) {
    return problem(
      input,
      `answered ${call(head)} with ${o.status} in ${took}: is this the origin of the recruiting API, and is it healthy?`,
    );
  }
  return ok(
    input,
    `answers (${o.status} to ${call(head)} without a key, in ${took}${o.edgeNode ? `, node ${o.edgeNode}` : ''})`,
  );
}

/**
 * A finding per key, in the config's order. A key named twice is checked once, where it is first
 * named. Organizations at once, each one's keys one after another: one request in flight per
 * organization, far under any concurrency cap.
 */
async function keyFindings(
  prober: HttpProber,
  at: Omit<KeyProbe, 'send'> | null,
  keys: readonly NamedKey[],
  hear: (edge: Edge) => (headers: RawHeaderValues) => void,
): Promise<DoctorFinding[]> {
  const firstNamed = keys.map((k, i) => keys.slice(0, i).find((other) => other.key === k.key) ?? null);
  const distinct = keys.filter((_, i) => firstNamed[i] === null);
  const checked = new Map<NamedKey, DoctorFinding>();
  if (at) {
    const orgs = [...new Set(distinct.map((k) => k.org))];
    await Promise.all(
      orgs.map(async (org) => {
        for (const k of distinct.filter((d) => d.org === org)) {
          const probe: KeyProbe = {
            ...at,
            send: (endpoint) =>
              prober.send(
                at.edge,
                { ...inertRequest(endpoint, k.key), onHeaders: hear(at.edge) },
                {
                  check: 'DOCTOR',
                  phase: 'key',
                  tier: null,
                  org: k.org,
                },
              ),
          };
          checked.set(k, await ROLE_CHECKS[k.role](k, probe));
        }
      }),
    );
  }
  const findings = keys.flatMap((k, i) => {
    const first = firstNamed[i];
    return first ? [duplicateFinding(k, first)] : (checked.get(k) ?? []);
  });
  return at ? findings : [...findings, problem('keys', 'not checked: no edge answered; fix the edges first')];
}

/** The run needs each role's key, and each organization's, to be its own (ORG-SHARED, SCOPE-ENFORCED, ORG-ISOLATED). */
function duplicateFinding(k: NamedKey, first: NamedKey): DoctorFinding {
  const fix =
    first.org === k.org
      ? `export a different key of ${k.org} in ${k.variable}`
      : `each organization needs keys of its own: export a key of ${k.org} in ${k.variable}`;
  return problem(inputOf(k), `the same key as ${first.path} (${first.variable}); ${fix}`);
}

/** Where keys are checked: the first edge that answered. */
interface KeyProbe {
  readonly edge: Edge;
  /** Its URL as the config names it. */
  readonly origin: string;
  send(endpoint: Endpoint): Promise<Observation>;
}

const jobsList = endpointById(contract, 'jobs-list');

/** An answer that tells nothing of the key's scopes: what it was, and what to do. */
function unusable(k: NamedKey, endpoint: Endpoint, o: Observation): DoctorFinding | null {
  if (o.status === null)
    return problem(
      inputOf(k),
      `${call(endpoint)}: no answer (${o.error?.code ?? 'error'}); check the edge, then run tiergate doctor again`,
    );
  if (o.status === contract.statuses.unauthenticated) {
    return problem(
      inputOf(k),
      `refused with ${o.status} on ${call(endpoint)}: the key is unknown, revoked or malformed; export a current key of ${k.org} in ${k.variable}`,
    );
  }
  if (o.status === contract.statuses.rateLimited) {
    const wait = o.rateLimit.retryAfter.value;
    return problem(
      inputOf(k),
      `${call(endpoint)} answered 429: ${k.org}'s quota or concurrency cap is in use; run tiergate doctor again${wait === null ? ' later' : ` in ${wait} s`}`,
    );
  }
  if (o.status >= 500)
    return problem(
      inputOf(k),
      `${call(endpoint)} answered ${o.status}: the deployment failed, not the key; run tiergate doctor again when it is healthy`,
    );
  return null;
}

/** Neither the answer the role expects nor a refusal: likely not the recruiting API at all. */
function unexpected(k: NamedKey, probe: KeyProbe, endpoint: Endpoint, o: Observation, expected: string): DoctorFinding {
  return problem(
    inputOf(k),
    `${call(endpoint)} answered ${o.status}, not ${expected}: is ${probe.origin} the recruiting API's origin?`,
  );
}

/** jobs.read admitted: the key is known and reads (a server that is not the API cannot pass this). */
async function reads(k: NamedKey, probe: KeyProbe): Promise<DoctorFinding | null> {
  const o = await probe.send(jobsList);
  const broken = unusable(k, jobsList, o);
  if (broken) return broken;
  if (o.status === contract.statuses.forbidden) return lacking(k, [jobsList]);
  return isAdmittedStatus(o.status) ? null : unexpected(k, probe, jobsList, o, '2xx');
}

/** Every scope: reads first, then each other scoped endpoint past its 403. */
async function primary(k: NamedKey, probe: KeyProbe): Promise<DoctorFinding> {
  const refused = await reads(k, probe);
  if (refused) return refused;
  const lacks: Endpoint[] = [];
  for (const endpoint of contract.endpoints) {
    if (endpoint.scope === null || endpoint === jobsList) continue;
    const o = await probe.send(endpoint);
    const broken = unusable(k, endpoint, o);
    if (broken) return broken;
    if (o.status === contract.statuses.forbidden) lacks.push(endpoint);
  }
  if (lacks.length > 0) return lacking(k, lacks);
  const scoped = contract.endpoints.filter((e) => e.scope !== null).length;
  return ok(
    inputOf(k),
    `accepted; holds every scope (none of the ${scoped} scoped endpoints answered ${contract.statuses.forbidden})`,
  );
}

function lacking(k: NamedKey, endpoints: readonly Endpoint[]): DoctorFinding {
  const scopes = endpoints.map((e) => e.scope).join(', ');
  return problem(
    inputOf(k),
    `lacks ${scopes} (${contract.statuses.forbidden} on ${endpoints.map(call).join(', ')}); a ${k.role} key holds every scope: grant ${endpoints.length === 1 ? 'it' : 'them'}, or export such a key of ${k.org} in ${k.variable}`,
  );
}

/** The second key reads the organization's quota after the first used it up (ORG-SHARED). */
async function secondary(k: NamedKey, probe: KeyProbe): Promise<DoctorFinding> {
  return (await reads(k, probe)) ?? ok(inputOf(k), `accepted; reads (${call(jobsList)})`);
}

/** SCOPE-ENFORCED needs a key the server knows that holds no scope: refused with 403 on a scoped read. */
async function unscoped(k: NamedKey, probe: KeyProbe): Promise<DoctorFinding> {
  const o = await probe.send(jobsList);
  const broken = unusable(k, jobsList, o);
  if (broken) return broken;
  if (o.status === contract.statuses.forbidden)
    return ok(inputOf(k), `accepted, holds no scope (${o.status} on ${call(jobsList)}, which needs ${jobsList.scope})`);
  if (!isAdmittedStatus(o.status)) return unexpected(k, probe, jobsList, o, String(contract.statuses.forbidden));
  return problem(
    inputOf(k),
    `admitted on ${call(jobsList)} (${o.status}): this key holds ${jobsList.scope}; SCOPE-ENFORCED needs a key of ${k.org} holding no scope: export one in ${k.variable}`,
  );
}

const ROLE_CHECKS: Readonly<Record<KeyRole, (k: NamedKey, probe: KeyProbe) => Promise<DoctorFinding>>> = {
  primary,
  secondary,
  unscoped,
};

/**
 * Each organization's declared read figure against the X-RateLimit-Limit its admitted reads carried.
 * Reads only: the doctor spends no ingest, and an upload it cannot parse need not announce the
 * ingest Limit. No admitted read (a key problem, named above): nothing to compare.
 */
function declaredReadFindings(config: Config, observations: readonly Observation[]): DoctorFinding[] {
  return config.orgs.flatMap((org, i) => {
    const declared = org.limits?.read;
    const reads = observations.filter(
      (o) => o.org === org.name && isAdmittedStatus(o.status) && quotaClassOfPath(contract, o.path) === 'read',
    );
    if (declared === undefined || reads.length === 0) return [];
    const input = `orgs.${i}.limits.read ${declared}`;
    const announced = [
      ...new Set(reads.flatMap((o) => (o.rateLimit.limit.value === null ? [] : [o.rateLimit.limit.value]))),
    ];
    const counted = `${reads.length} read${reads.length === 1 ? '' : 's'}`;
    if (announced.length === 0)
      return [
        ok(input, `no X-RateLimit-Limit on ${counted} to compare with; the run counts ${org.name}'s reads to it`),
      ];
    const other = announced.filter((v) => v !== declared);
    if (other.length === 0) return [ok(input, `equals the X-RateLimit-Limit of ${org.name}'s ${counted}`)];
    return [
      problem(
        input,
        `${org.name}'s reads were answered with X-RateLimit-Limit ${other.join(', ')}: HDR-LIMIT and QUOTA-READ hold it to ${declared}; write the read figure of ${org.name}'s contract here, or have the deployment enforce ${declared}`,
      ),
    ];
  });
}

function clockFinding(clock: ClockEstimate | null, answered: number): DoctorFinding {
  if (clock === null) {
    return answered === 0
      ? problem('server clock', 'not measured: nothing answered')
      : problem(
          'server clock',
          'no answer carried a Date header: Reset and window timing are judged on the server clock; have the deployment send Date',
        );
  }
  const signed = (ms: number) => (Math.abs(ms) < 10_000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);
  const ahead = clock.offsetMs >= 0 ? `+${signed(clock.offsetMs)}` : signed(clock.offsetMs);
  return ok(
    'server clock',
    `${ahead} ± ${signed(clock.uncertaintyMs)} from ours (Date headers of ${clock.samples} answer${clock.samples === 1 ? '' : 's'}; tiergate judges on the server's clock, so an offset is no problem)`,
  );
}

/** One line per finding, then the tally. */
export function formatDoctor(outcome: DoctorOutcome): string {
  const lines = outcome.findings.map((f) => `${(f.ok ? 'ok' : 'problem').padEnd(8)} ${f.input}: ${f.detail}`);
  const problems = outcome.findings.filter((f) => !f.ok).length;
  const tally =
    problems === 0
      ? `all ${outcome.findings.length} checks ok (${outcome.requests} requests)`
      : `${problems} problem${problems === 1 ? '' : 's'} in ${outcome.findings.length} checks (${outcome.requests} requests): fix ${problems === 1 ? 'it' : 'them'} and run tiergate doctor again`;
  return `${lines.join('\n')}\n${tally}\n`;
}
