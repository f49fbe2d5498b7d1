/**
 * Rewrites docs/contract.md from the contract module:
 *   npm run generate
 * A test fails when the committed document and the contract differ.
 */
import { writeFile } from 'node:fs/promises';
import { CONTRACT_DOC_PATH, contractMarkdown } from './contract-doc-source.ts';
import { recruitingApi } from './recruiting-api.ts';

const target = new URL(`../../${CONTRACT_DOC_PATH}`, import.meta.url);
await writeFile(target, contractMarkdown(recruitingApi));
process.stdout.write(`wrote ${target.pathname}\n`);
