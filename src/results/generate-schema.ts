/**
 * Regenerates schemas/results.schema.json and schemas/config.schema.json from their zod schemas:
 *   npm run generate
 * A test fails when the committed file and the schema differ.
 */
import { writeFile } from 'node:fs/promises';
import { resultsJsonSchemaText } from './schema.ts';
import { CONFIG_SCHEMA_URL, configJsonSchemaText } from '../config/json-schema.ts';

const target = new URL('../../schemas/results.schema.json', import.meta.url);
await writeFile(target, resultsJsonSchemaText());
process.stdout.write(`wrote ${target.pathname}\n`);
await writeFile(CONFIG_SCHEMA_URL, configJsonSchemaText());
process.stdout.write(`wrote ${CONFIG_SCHEMA_URL.pathname}\n`);
