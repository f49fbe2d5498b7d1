/** Reasons a check was not run here: what the configuration or the scenario does not give it. */
import { reason } from './define.ts';

export const NOT_RUN_REASONS = {
  'far-deployment': reason<{ edges: readonly string[] }>()({
    verdicts: ['skipped'],
    text: ({ edges }) =>
      `${edges.join(', ')} ${edges.length === 1 ? 'is not a loopback address' : 'are not loopback addresses'}: latencies measured from here would include the distance to the deployment, and LOAD-THRESHOLDS would judge it as the deployment's; run the load beside the deployment`,
    means: "LOAD-THRESHOLDS judges the deployment's latencies; measured from afar they would be the network's too.",
    causes: ['the config names edges that are not loopback addresses'],
    change: [
      'run the load beside the deployment: `tiergate k6 export` and a k6 vantage there',
      'leave LOAD-THRESHOLDS out of `--check` for a run from afar',
    ],
  }),
  'writes-none': reason()({
    verdicts: ['skipped'],
    text: () =>
      '"writes": "none" in the config: this check uploads sample resumes, which the deployment parses (and may bill); allow it with "writes": "own"',
    means: 'The check uploads sample resumes, and the config allows no writes to the deployment.',
    causes: ['config `writes` is "none"'],
    change: ['set config `writes` to "own" where the deployment may parse (and bill) the sample uploads'],
  }),
  'no-revocation-hook': reason()({
    verdicts: ['skipped'],
    text: () =>
      'no way to provision and revoke keys: use the embedded target (admin API), or give revocation.hook (http, command or disposable keys) in the config',
    means: 'Revocation trials need keys they can create and revoke, and the run has no way to.',
    causes: ['a deployment config without `revocation.hook`'],
    change: ['give `revocation.hook` in the config (http, command, or disposable keys)'],
  }),
  'no-second-key': reason()({
    verdicts: ['skipped'],
    text: () => 'no second key of this organization was configured',
    means: "ORG-SHARED needs a second key of the same organization, to show both draw on the organization's one quota.",
    causes: ['the organization has only a primary key in the config'],
    change: ['give `orgs[].keys.secondary` in the config'],
  }),
  'no-unscoped-key': reason()({
    verdicts: ['skipped'],
    text: () => 'no key lacking scopes was configured for this organization',
    means: 'SCOPE-ENFORCED needs a key without the scopes, to show each endpoint refuses it.',
    causes: ['the organization has no key without scopes in the config'],
    change: ['give `orgs[].keys.unscoped` in the config: a key with no scopes'],
  }),
  'no-load-shape': reason()({
    verdicts: ['skipped'],
    text: () => 'the scenario has no sustained-load shape (load: null)',
    means: 'LOAD-THRESHOLDS runs the scenario’s load phases, and this scenario has none.',
    causes: ['a scenario with `load: null`'],
    change: ['give the scenario a `load` shape (phases and thresholds), or leave LOAD-THRESHOLDS out'],
  }),
  'fleet-phases-skipped': reason<{ tier: string; needed: number; phases: readonly string[] }>()({
    verdicts: ['pass', 'inconclusive', 'fail'],
    text: ({ tier, needed, phases }) =>
      `fleet phases skipped (${phases.join(', ')}): this target cannot provision more ${tier} organizations (needed ${needed})`,
    means:
      'The load phases that run several organizations at once were left out: the verdict rests on the one organization’s phases alone.',
    causes: ['a deployment, where tiergate cannot create organizations (only the embedded target can)'],
    change: [
      'run the fleet phases against the embedded target (`tiergate run` without a deployment config)',
      'give the scenario’s `load.phases` one organization each (`orgs: 1`) to say the fleet is not wanted',
    ],
  }),
} as const;
