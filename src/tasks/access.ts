/**
 * Checks that need no quota window: authentication (§5.1, §5.3), key format, the scope list, scope
 * enforcement on every endpoint of §4, and HEAD /recruiter/bootstrap.
 */
import { endpointById } from '../contract/lookup.ts';
import { unissuedKey } from '../contract/keys.ts';
import type { Endpoint } from '../contract/types.ts';
import type { CheckId, Finding } from '../catalogue/types.ts';
import { keyFormatVerdict } from '../verdicts/auth-key-format.ts';
import type { Observation } from '../measure/observation.ts';
import type { SuiteContext } from '../suite/context.ts';
import type { FreshWindow } from '../windows/keeper.ts';
import type { OrgHandle } from '../contract/handles.ts';
import { createdId, inertRequest, ownedWrite, requestFor } from '../measure/requests.ts';
import type { ProbeRequest } from '../measure/http-prober.ts';
import { isAdmitted } from '../measure/observation.ts';
import { waitOutRefusal } from '../suite/refusal-wait.ts';
import { archiveJob } from '../suite/cleanup.ts';
import type { CreatedResource } from '../results/types.ts';
import { defineTask, inconclusiveFinding, skippedFinding, timed } from '../suite/task.ts';
import { because } from '../catalogue/reasons/index.ts';

/** HEAD-BOOTSTRAP measurements at most: each is two HEADs, a boundary may spoil one. */
const HEAD_ATTEMPTS = 3;

export const access = defineTask({
  kind: 'access',
  decides: {
    'AUTH-MISSING': '',
    'AUTH-MALFORMED': '',
    'AUTH-UNKNOWN': '',
    'AUTH-KEY-FORMAT': '',
    'SCOPE-LIST': '',
    'SCOPE-ENFORCED': '',
    'HEAD-BOOTSTRAP': '',
  },
  consumes: 'none',
  orgs: 1,
  placement: 'lane',
  describe:
    'missing, malformed and unknown keys; key formats; the scope list; every scoped endpoint with and without its scope; two HEADs',
  run: async (context, task) => {
    const org = task.orgs[0]!;
    task.begin();
    const send = sender(context, org);
    const a: AccessRun = { context, org, send };
    const jobs = endpointById(context.contract, 'jobs-list');
    const unauthenticated = context.contract.statuses.unauthenticated;
    // One check after another, each timed on its own.
    const authMissing = await timed(context, async () =>
      context.judgements.judge(
        'authRejected',
        [
          await send('AUTH-MISSING', jobs, null),
          await send('AUTH-MISSING', endpointById(context.contract, 'bootstrap-head'), null),
        ],
        unauthenticated,
      ),
    );
    const authMalformed = await timed(context, async () => {
      const malformed = ['not-a-key', 'xh_live_short', `xh_prod_${'a'.repeat(32)}`, `Bearer ${'b'.repeat(40)}`];
      const sent: Observation[] = [];
      for (const key of malformed) sent.push(await send('AUTH-MALFORMED', jobs, key));
      return context.judgements.judge('authRejected', sent, unauthenticated);
    });
    const authUnknown = await timed(context, async () => {
      const sent: Observation[] = [];
      for (const format of context.contract.keyFormats)
        sent.push(await send('AUTH-UNKNOWN', jobs, unissuedKey(format.prefix)));
      return context.judgements.judge('authRejected', sent, unauthenticated);
    });
    const tierOrgs = context.orgs.filter((o) => o.tier === org.tier);
    const keyFormat = await timed(context, async () =>
      context.judgements.withheld(
        keyFormatVerdict(
          tierOrgs.flatMap((o) =>
            [o.primary, o.secondary, o.unscoped].flatMap((k) => (k ? [{ label: k.label, key: k.key }] : [])),
          ),
          context.contract,
        ),
        'keyFormatVerdict',
      ),
    );
    const scopeList = await timed(context, async () =>
      context.judgements.judge(
        'scopeListVerdict',
        await send('SCOPE-LIST', endpointById(context.contract, 'scope-list'), org.primary.key),
        context.contract,
      ),
    );
    const unscopedKey = org.unscoped?.key;
    const scopeEnforced =
      unscopedKey === undefined
        ? skippedFinding(because('no-unscoped-key', {}))
        : await timed(context, () => judgeScopeEnforced(a, unscopedKey));
    const headBootstrap = await timed(context, () => judgeHeadBootstrap(a));
    return {
      'AUTH-MISSING': authMissing,
      'AUTH-MALFORMED': authMalformed,
      'AUTH-UNKNOWN': authUnknown,
      'AUTH-KEY-FORMAT': keyFormat,
      'SCOPE-LIST': scopeList,
      'SCOPE-ENFORCED': scopeEnforced,
      'HEAD-BOOTSTRAP': headBootstrap,
    };
  },
});

/** What the access checks share: the run, the organization checked, and its sender. */
interface AccessRun {
  readonly context: SuiteContext;
  readonly org: OrgHandle;
  readonly send: ReturnType<typeof sender>;
}

/** SCOPE-ENFORCED: every scoped endpoint, with a key lacking its scope and with one holding it. */
async function judgeScopeEnforced({ context, org, send }: AccessRun, unscopedKey: string): Promise<Finding> {
  const rows = [];
  let jobId: string | null = null;
  const createdHere: CreatedResource[] = [];
  for (const endpoint of context.contract.endpoints) {
    if (endpoint.scope === null) continue;
    // The key lacking the scope sends the write as it is (refusing it is what is judged):
    // a deployment that admits it created something, which the ledger keeps.
    const denied = await send(
      'SCOPE-ENFORCED',
      endpoint,
      unscopedKey,
      ownedWrite(endpoint, unscopedKey, context.runId, null),
    );
    const admitted = await send(
      'SCOPE-ENFORCED',
      endpoint,
      org.primary.key,
      scopedWrite(context, endpoint, org.primary.key, jobId),
    );
    for (const o of [denied, admitted]) {
      const made = createdBy(endpoint, o);
      if (made) createdHere.push(context.created.add({ ...made, tier: org.tier, org: org.label }));
      if (made?.kind === 'job' && o === admitted) jobId = made.id;
    }
    rows.push({
      endpointId: endpoint.id,
      method: endpoint.method,
      path: endpoint.path,
      scope: endpoint.scope,
      denied,
      admitted,
    });
  }
  // Done with what it created (the update went to its own job): archived at once.
  for (const made of createdHere) await archiveJob(context, made);
  return context.judgements.judge('scopeEnforcedVerdict', rows, context.contract.statuses.forbidden);
}

/** HEAD-BOOTSTRAP: two HEADs in a row, measured again while a window boundary spoils the pair. */
async function judgeHeadBootstrap({ context, org, send }: AccessRun): Promise<Finding> {
  const head = endpointById(context.contract, 'bootstrap-head');
  const options = { declaredFree: context.declared['head-bootstrap-free'] ?? null };
  // Two HEADs a window boundary fell between decide nothing: measure again, a few times at most.
  const sendHead = () => send('HEAD-BOOTSTRAP', head, org.primary.key);
  let finding: Finding | null = null;
  let first: Observation | null = await sendHead();
  for (let attempt = 1; attempt <= HEAD_ATTEMPTS && first !== null && !context.signal.aborted; attempt++) {
    const second = await sendHead();
    finding = context.judgements.judge('headBootstrapVerdict', first, second, context.windowMs / 1000, options);
    if (finding.verdict !== 'inconclusive') break;
    // Refused for quota: the next pair needs a window with room, which its first HEAD (counted or not) shows.
    const refused: boolean = [first, second].some((o) => o.status === context.contract.statuses.rateLimited);
    const opened: FreshWindow | null = refused
      ? await context.windows.fresh([org], 'read', { first: sendHead, units: [0, 1], needMs: () => 0 })
      : null;
    first = opened === null ? await sendHead() : opened.ok ? opened.first : null;
  }
  return finding ?? inconclusiveFinding('two HEADs', because('interrupted', { wouldHaveBeen: '' }));
}

/**
 * Sends one request of an access check. These checks judge statuses, not counts, so one sent again
 * tells as much:
 * - one whose connection dropped before any answer is sent again, once (one that timed out is not: a
 *   server that hangs would only hang again);
 * - one refused for quota (the window a discovery used up just before, say: a 429 says nothing of
 *   keys or scopes) is sent again, once, when the wait it announces is over (a window at most).
 */
function sender(context: SuiteContext, org: OrgHandle) {
  const edge = context.prober.edges[0]!;
  return async (
    check: CheckId,
    endpoint: Endpoint,
    key: string | null,
    request: ProbeRequest = requestFor(endpoint, key, { runId: context.runId }),
  ) => {
    const send = () => context.prober.send(edge, request, { check, phase: 'access', tier: org.tier, org: org.label });
    const o = await send();
    if (context.signal.aborted) return o;
    if (o.status === null) return o.error?.code !== 'TIMEOUT' ? send() : o;
    if (o.status !== context.contract.statuses.rateLimited) return o;
    await waitOutRefusal(context, o);
    return context.signal.aborted ? o : send();
  };
}

/**
 * The write a key holding the endpoint's scope sends: with `writes: none`, a body the deployment
 * refuses after its scope check (nothing is created; any answer but 401/403 is past the check);
 * with `own`, the write itself, named by the run id (the update goes to the job the run created).
 */
function scopedWrite(context: SuiteContext, endpoint: Endpoint, key: string, jobId: string | null): ProbeRequest {
  return context.writes === 'none' ? inertRequest(endpoint, key) : ownedWrite(endpoint, key, context.runId, jobId);
}

/** What an admitted write created: a job (with its id, where the answer named one) or a webhook subscription. */
function createdBy(endpoint: Endpoint, o: Observation): { kind: 'job' | 'webhook'; id: string | null } | null {
  if (!isAdmitted(o) || o.method !== 'POST') return null;
  if (endpoint.id === 'jobs-create') return { kind: 'job', id: createdId(o.body) };
  if (endpoint.id === 'webhooks') return { kind: 'webhook', id: createdId(o.body) };
  return null;
}
