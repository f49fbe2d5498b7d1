/**
 * Rewrites checks/registry.ts and catalogue/check-ids.ts from the check modules in src/checks/
 * (`npm run generate` runs it with the other generators). A test fails when either is stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { moduleExports } from '../util/generated-list.ts';
import { checkIdsSource, checkModulesInOrder, registrySource } from './registry-source.ts';

const here = new URL('./', import.meta.url);
const registryUrl = new URL('./registry.ts', here);
const idsUrl = new URL('../catalogue/check-ids.ts', here);
const modules = checkModulesInOrder(await moduleExports(here), await readFile(registryUrl, 'utf8').catch(() => ''));
await writeFile(registryUrl, registrySource(modules));
await writeFile(idsUrl, checkIdsSource(modules));
process.stdout.write(`wrote ${registryUrl.pathname} and ${idsUrl.pathname}\n`);
