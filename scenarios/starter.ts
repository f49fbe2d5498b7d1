/**
 * Starter: 60 reads, 10 resumes and 5 connections per organization per minute (spec §8).
 * Copy this file to write your own scenario: `tiergate run --scenario ./my-scenario.ts`.
 */
import { defineScenario, sustainedLoad } from 'tiergate';

export default defineScenario({
  tier: 'starter',
  description: 'Starter tier: exact read and ingest quotas, the 5-connection cap, headers and scopes',
  // Three orgs: two for ORG-ISOLATED, and the quota checks spread over all three lanes.
  orgs: 3,
  // 'all', or a list of check IDs (tiergate list shows them).
  checks: 'all',
  quota: { variants: ['sequential', 'burst'] },
  // Revocation: trials, probe interval per edge, how long edges are watched once all rejected, and
  // trials at most at once (each on a rotation chain of its own).
  revocation: { trials: 20, intervalMs: 10, settleMs: 2000, parallel: 7 },
  // Sustained load (LOAD-THRESHOLDS, opt-in with --checks): phases at 1x and 2x quota and a fleet of
  // orgs at quota, with k6-syntax thresholds. Spell out `{ endpoint, phases, thresholds }` to tune it.
  load: sustainedLoad({ fleetOrgs: 10 }),
});
