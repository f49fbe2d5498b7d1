/**
 * k6 sustained load for the starter tier: at quota, at twice the quota and (with several keys) a fleet
 * of orgs at quota, with the scenario's thresholds. Run it where k6 is installed:
 *
 *   k6 run -e BASE_URL=http://host:port -e TIERGATE_KEYS=starter-a=KEY,starter-b=KEY --out json=starter.json scenarios/k6/starter.ts
 *   tiergate k6 ingest starter.json
 *
 * or bundle it first (`tiergate k6 export --out DIR`) for one self-contained file per tier.
 */
import { tierScript } from './lib/scenario.ts';

const script = tierScript('starter');

export const options = script.options;
export const hit = script.hit;
export default script.hit;
