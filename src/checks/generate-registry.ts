/**
 * Rewrites checks/registry.ts and catalogue/check-ids.ts from the check modules in src/checks/
 * (`npm run generate` runs it with the other generators). A test fails when either is stale.
 */
import { writeLists } from '../util/generated-list.ts';
import { checkIdsSource, checkModulesInOrder, registrySource } from './registry-source.ts';

await writeLists(
  new URL('./', import.meta.url),
  { list: './registry.ts', literals: '../catalogue/check-ids.ts' },
  { order: checkModulesInOrder, list: registrySource, literals: checkIdsSource },
);
