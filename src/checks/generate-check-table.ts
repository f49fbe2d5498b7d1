/**
 * Rewrites the README's check table from the catalogue:
 *   npm run generate
 * A test fails when the committed README and the catalogue differ.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { checkTableMarkdown, withCheckTable } from './check-table.ts';

const readmeUrl = new URL('../../README.md', import.meta.url);
const updated = withCheckTable(await readFile(readmeUrl, 'utf8'), checkTableMarkdown());
if (updated === null) throw new Error('README.md has no check table markers (see src/checks/check-table.ts)');
await writeFile(readmeUrl, updated);
process.stdout.write(`wrote the check table in ${readmeUrl.pathname}\n`);
