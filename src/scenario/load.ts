/**
 * Scenario files are TypeScript modules whose default export is a `defineScenario(...)` value. They
 * are loaded once, at the boundary, and checked: a file that does not export a scenario is a usage
 * error naming the file and what is wrong.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { CHECK_IDS } from '../checks/types.ts';
import { TIER_NAMES, type TierName } from '../contract/types.ts';
import { UsageError } from '../errors.ts';
import type { Scenario } from './define.ts';
import { parseThresholds } from '../load/thresholds.ts';

const scenarioShape = z.object({
  tier: z.enum(TIER_NAMES),
  description: z.string(),
  orgs: z.number().int().min(1).max(26),
  checks: z.union([z.literal('all'), z.array(z.enum(CHECK_IDS))]),
  quota: z.object({ variants: z.array(z.enum(['sequential', 'burst'])) }),
  revocation: z.object({ trials: z.number().int().min(1).max(1000), intervalMs: z.number().min(1), settleMs: z.number().min(0) }),
  load: z.unknown(),
});

/** The scenarios shipped in scenarios/, one per tier. */
export function defaultScenarioFile(tier: TierName): string {
  return new URL(`../../scenarios/${tier}.ts`, import.meta.url).pathname;
}

export async function loadScenarioFile(file: string, cwd: string): Promise<Scenario> {
  const path = resolve(cwd, file);
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(path).href)) as { default?: unknown };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ERR_MODULE_NOT_FOUND' ? 'file not found' : (error as Error).message.split('\n')[0];
    throw new UsageError(`--scenario ${file}: cannot load it (${why})`, 'TG_SCENARIO');
  }
  const parsed = scenarioShape.safeParse(module.default);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(default export)'}: ${i.message}`).join('; ');
    throw new UsageError(`--scenario ${file}: the default export is not a scenario (${problems}); export default defineScenario({...})`, 'TG_SCENARIO');
  }
  const scenario = module.default as Scenario;
  // Thresholds are checked here, so a typo is reported before any traffic, not after the run.
  if (scenario.load) parseThresholds(scenario.load.thresholds, `--scenario ${file}: load.thresholds`);
  return scenario;
}
