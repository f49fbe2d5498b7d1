/**
 * Rewrites docs/troubleshooting.md from the reason codes:
 *   npm run generate
 * A test fails when the committed file and the codes differ.
 */
import { writeFile } from 'node:fs/promises';
import { TROUBLESHOOTING_PATH, troubleshootingMarkdown } from './guide.ts';

const target = new URL(`../../../${TROUBLESHOOTING_PATH}`, import.meta.url);
await writeFile(target, troubleshootingMarkdown());
process.stdout.write(`wrote ${target.pathname}\n`);
