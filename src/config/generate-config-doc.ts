/**
 * Rewrites docs/configuration.md from the config schema:
 *   npm run generate
 * A test fails when the committed document and the schema differ.
 */
import { writeFile } from 'node:fs/promises';
import { CONFIGURATION_DOC_PATH, configurationMarkdown } from './config-doc-source.ts';

const target = new URL(`../../${CONFIGURATION_DOC_PATH}`, import.meta.url);
await writeFile(target, configurationMarkdown());
process.stdout.write(`wrote ${target.pathname}\n`);
