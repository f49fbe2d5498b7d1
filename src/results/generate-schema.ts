/**
 * Regenerates schemas/results.schema.json from the zod schema:
 *   node --import tsx src/results/generate-schema.ts
 * A test fails when the committed file and the schema differ.
 */
import { writeFile } from 'node:fs/promises';
import { resultsJsonSchemaText } from './schema.ts';

const target = new URL('../../schemas/results.schema.json', import.meta.url);
await writeFile(target, resultsJsonSchemaText());
process.stdout.write(`wrote ${target.pathname}\n`);
