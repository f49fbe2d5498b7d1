/** Professional: 300 reads, 60 resumes and 25 connections per organization per minute (spec §8). */
import { defineScenario, sustainedLoad } from 'tiergate';

export default defineScenario({
  tier: 'professional',
  description: 'Professional tier: exact read and ingest quotas, the 25-connection cap, headers and scopes',
  load: sustainedLoad({ fleetOrgs: 5 }),
});
