/**
 * One tier's k6 test, built from the same data the harness uses: the contract (header names, the
 * tier's published quota) and the scenario's LoadShape (phases and k6-syntax thresholds). Each phase
 * becomes a constant-arrival-rate scenario at `rateMultiple` × quota per window per org, one after
 * another; each iteration is one request for one org, taken round-robin, so every org gets exactly
 * its rate across all runners (k6 splits the rate between instances by execution segment).
 *
 * The LoadShape is the tier's scenario file's own: `tiergate k6 export` injects it when bundling
 * (TIERGATE_LOAD_SHAPE). Run as plain TypeScript (`k6 run scenarios/k6/starter.ts`), the standard
 * `sustainedLoad` shape is used, its fleet as large as the list of keys.
 */
import exec from 'k6/execution';
import http from 'k6/http';
import type { Options, Scenario } from 'k6/options';
import { recruitingApi } from '../../../src/contract/recruiting-api.ts';
import { endpointById, resolvePath } from '../../../src/contract/lookup.ts';
import type { TierName } from '../../../src/contract/types.ts';
import { EXPECTED_STATUSES } from '../../../src/measure/outcome.ts';
import { sustainedLoad, type LoadShape } from '../../../src/scenario/define.ts';
import { readEnv } from './env.ts';
import { recordResponse } from './metrics.ts';
import type { K6RateLimitDialect } from './rate-limit.ts';

/** Replaced by `tiergate k6 export` with the tier scenario's LoadShape (JSON). */
declare const TIERGATE_LOAD_SHAPE: LoadShape | undefined;
/** Replaced by `tiergate k6 export --declare-headers` with the declared dialect's fields (JSON); absent: §8's X-RateLimit-*. */
declare const TIERGATE_RATE_LIMIT_DIALECT: K6RateLimitDialect | undefined;

export interface TierScript {
  readonly options: Options;
  /** The function every phase's scenario executes (`exec: 'hit'`). */
  readonly hit: () => void;
}

/** k6 scenario names allow letters, digits, '_' and '-'. */
function scenarioName(phase: string): string {
  return phase.replace(/[^0-9A-Za-z_-]/g, '_');
}

export function tierScript(tier: TierName): TierScript {
  const contract = recruitingApi;
  const env = readEnv(__ENV, tier);
  const shape: LoadShape =
    typeof TIERGATE_LOAD_SHAPE !== 'undefined' ? TIERGATE_LOAD_SHAPE : sustainedLoad({ fleetOrgs: env.keys.length });
  const dialect = typeof TIERGATE_RATE_LIMIT_DIALECT !== 'undefined' ? TIERGATE_RATE_LIMIT_DIALECT : null;
  const endpoint = endpointById(contract, shape.endpoint);
  const figure = contract.tiers[tier][endpoint.quotaClass ?? 'read'];
  const limit = env.limit ?? figure.value;
  const windowS = env.windowS ?? contract.windowSeconds;
  const url = `${env.baseUrl}${resolvePath(endpoint.path, endpoint.id === 'candidate-read' ? 'cand-1' : 'job-1')}`;

  const scenarios: Record<string, Scenario> = {};
  let offsetS = 0;
  for (const phase of shape.phases) {
    const orgs = Math.min(phase.orgs, env.keys.length);
    // A fleet phase with one key would repeat the at-quota phase: skip it, as the harness does.
    if (phase.orgs > 1 && orgs < 2) continue;
    const perWindow = Math.round(phase.rateMultiple * limit * orgs);
    const perSecond = perWindow / windowS;
    scenarios[scenarioName(phase.name)] = {
      executor: 'constant-arrival-rate',
      rate: perWindow,
      timeUnit: `${windowS}s`,
      duration: `${phase.windows * windowS}s`,
      startTime: `${offsetS}s`,
      // Enough VUs for a second of latency at this rate; k6 counts what it cannot start (dropped_iterations).
      preAllocatedVUs: Math.max(2, Math.ceil(perSecond * 0.25)),
      maxVUs: Math.max(10, Math.ceil(perSecond * 2)),
      gracefulStop: '5s',
      exec: 'hit',
      env: { TIERGATE_PHASE_ORGS: String(orgs) },
      tags: { phase: phase.name, tier },
    };
    offsetS += phase.windows * windowS;
  }

  const thresholds: Record<string, string[]> = {};
  for (const [metric, expressions] of Object.entries(shape.thresholds)) thresholds[metric] = [...expressions];

  // A 429 at or above quota is the expected answer, not a failed request (§7, §8 rule 1).
  http.setResponseCallback(
    http.expectedStatuses({ min: EXPECTED_STATUSES.min, max: EXPECTED_STATUSES.max }, ...EXPECTED_STATUSES.also),
  );

  const hit = (): void => {
    const orgs = Number(__ENV.TIERGATE_PHASE_ORGS ?? '1');
    const org = env.keys[exec.scenario.iterationInTest % orgs] ?? env.keys[0]!;
    const res = http.request(endpoint.method, url, null, {
      headers: { [contract.headers.apiKey]: org.key },
      tags: { org: org.label, tier },
      // Measure every request as it is: no redirects followed, no retries (k6 makes none).
      redirects: 0,
    });
    recordResponse(res, contract.headers, dialect, org.label, tier);
  };

  return {
    options: {
      scenarios,
      thresholds,
      discardResponseBodies: true,
      // k6's defaults leave out the tags the verdicts need on http_req_* (org, tier come from the request).
      systemTags: ['status', 'method', 'name', 'scenario', 'expected_response', 'error_code'],
      summaryTrendStats: ['avg', 'min', 'med', 'p(95)', 'p(99)', 'max', 'count'],
    },
    hit,
  };
}
