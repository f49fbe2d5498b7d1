/**
 * Rewrites the check table of docs/checks.md from the catalogue:
 *   npm run generate
 * A test fails when the committed table and the catalogue differ.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { CHECK_TABLE_PATH, checkTableMarkdown, withCheckTable } from './check-table.ts';

const target = new URL(`../../${CHECK_TABLE_PATH}`, import.meta.url);
const updated = withCheckTable(await readFile(target, 'utf8'), checkTableMarkdown());
if (updated === null) throw new Error(`${CHECK_TABLE_PATH} has no check table markers (see src/checks/check-table.ts)`);
await writeFile(target, updated);
process.stdout.write(`wrote the check table in ${target.pathname}\n`);
