/** The JSON Schema editors use for tiergate.config.json, generated from the same zod definition. */
import { z } from 'zod';
import { configSchema } from './schema.ts';

/** Where the committed editor schema is: written by generate-schema.ts, named by `tiergate init`'s `$schema`. */
export const CONFIG_SCHEMA_URL = new URL('../../schemas/config.schema.json', import.meta.url);

/** As committed in `schemas/config.schema.json` (two-space indent, final newline). */
export function configJsonSchemaText(): string {
  const schema = z.toJSONSchema(configSchema, { target: 'draft-2020-12', io: 'input' });
  return `${JSON.stringify({ ...schema, title: 'tiergate config', description: 'A real deployment for tiergate run --config: edges, organizations (keys by environment variable), revocation hooks.' }, null, 2)}\n`;
}
