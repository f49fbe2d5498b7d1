/**
 * Enterprise / Custom: at least 2,500 reads, 500 resumes and 100 connections per minute (spec §8).
 * The figures are minimums: quota checks test the Limit the server announces.
 */
import { defineScenario, sustainedLoad } from 'tiergate';

export default defineScenario({
  tier: 'enterprise',
  description:
    'Enterprise tier: announced quotas at or above the published minimums, the connection cap, headers and scopes',
  load: sustainedLoad({ fleetOrgs: 3, p95Ms: 500 }),
});
