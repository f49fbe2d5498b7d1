/**
 * Reasons that belong to how a measurement went, whatever the check: windows, lost answers, fit,
 * budgets, interruption, and checks that were not run.
 */
import { reason } from './define.ts';

export const MEASUREMENT_REASONS = {
  'window-rolled-over': reason<{ detail: string }>()({
    verdicts: ['inconclusive'],
    text: ({ detail }) => `the quota window rolled over mid-check (${detail})`,
    means: "The check's requests did not all fall inside one quota window, so where the 429 fell proves nothing.",
    causes: [
      'the window is too short for the check at this distance or load',
      'the server starts its windows elsewhere than the run learned (a clock-aligned window met early)',
    ],
    change: [
      'a longer window (`--window`, config `window`) if the deployment allows it',
      'a nearer vantage point, or fewer tiers at once (`--tier`)',
    ],
  }),
  'no-fresh-window': reason<{ detail: string }>()({
    verdicts: ['inconclusive'],
    text: ({ detail }) => `no fresh quota window to start in: ${detail}`,
    means: 'No window could be had that the server showed fresh (its Remaining) and long enough (its Reset).',
    causes: [
      "another client is spending the organization's quota",
      'the declared window is longer than the server announces',
    ],
    change: [
      'give tiergate organizations no one else uses (config `orgs`)',
      'check the window: `tiergate profile` shows how the server limits',
    ],
  }),
  'does-not-fit-window': reason<{ detail: string }>()({
    verdicts: ['inconclusive'],
    text: ({ detail }) => `not run: ${detail}`,
    means:
      'The requests the check needs cannot all fit one quota window at the round trips or upload times measured; none were sent.',
    causes: ['a distant deployment (long round trips)', 'a slow parser for uploads', 'a small concurrency cap'],
    change: [
      'a longer window (`--window`, config `window`)',
      'a nearer vantage point',
      'a larger declared cap (config `orgs[].limits.concurrency`)',
    ],
  }),
  'answers-lost': reason<{ lost: number; of: number }>()({
    verdicts: ['inconclusive'],
    text: ({ lost, of }) => `${lost} of ${of} requests got no answer`,
    means: 'Requests went unanswered (timeout, reset, refused), and what the server did with them decides the check.',
    causes: [
      'a flaky network or proxy',
      'the server dropping connections under load',
      'a timeout shorter than the parser',
    ],
    change: ['a longer per-request timeout (`--timeout`, config `timeout`)', 'check the network path to the edge'],
  }),
  'remeasure-budget-spent': reason<{ windows: number }>()({
    verdicts: ['inconclusive'],
    text: ({ windows }) => `measured again in ${windows} more windows, the budget, and still undecided`,
    means: 'The check was spoiled each time it was measured, and the run had no more windows to spend on it.',
    causes: ['a boundary or lost answer each time', 'a window too short for the distance'],
    change: ['a longer window (`--window`)', 'a nearer vantage point'],
  }),
  interrupted: reason<{ wouldHaveBeen: string }>()({
    verdicts: ['inconclusive'],
    text: ({ wouldHaveBeen }) =>
      `the run was interrupted while this check ran${wouldHaveBeen === '' ? '' : `; it would otherwise have been ${wouldHaveBeen}`}`,
    means:
      'Ctrl-C (or a signal) stopped the run while this check was measuring; what it found is reported, never as a verdict.',
    causes: ['the run was stopped by hand or by the CI job'],
    change: ['let the run finish; `--dry-run` says how long it will take'],
  }),
  'task-stopped': reason<{ detail: string }>()({
    verdicts: ['inconclusive'],
    text: ({ detail }) => detail,
    means: 'The task that measures this check stopped before deciding it.',
    causes: ['an error in a hook or the network, named in the detail'],
    change: ['read the warning the run printed for this task, fix its cause and run again'],
  }),
  'not-run': reason<{ detail: string }>()({
    verdicts: ['skipped'],
    text: ({ detail }) => detail,
    means: 'The check could not run in this configuration; the detail names what it lacks.',
    causes: ['a key, organization or hook the config does not give', 'writes not allowed (`"writes": "none"`)'],
    change: ['give what the detail names in the config (`orgs[].keys`, `hooks`, `writes`)'],
  }),
} as const;
