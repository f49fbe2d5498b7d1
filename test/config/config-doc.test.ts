/** docs/configuration.md is written from the config schema, every field with its meaning; a stale one fails here. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CONFIGURATION_DOC_PATH, configFields, configurationMarkdown } from '../../src/config/config-doc-source.ts';
import { configSchema } from '../../src/config/schema.ts';

const committed = readFileSync(new URL(`../../${CONFIGURATION_DOC_PATH}`, import.meta.url), 'utf8');

/** Every property name the schema declares, at any depth, in any alternative. */
function propertyNames(node: unknown): string[] {
  if (typeof node !== 'object' || node === null) return [];
  const own = Object.keys((node as { properties?: object }).properties ?? {});
  return [...own, ...Object.values(node).flatMap(propertyNames)];
}

describe('docs/configuration.md', () => {
  it('is the one the config schema writes (if this fails: npm run generate)', () => {
    expect(committed).toBe(configurationMarkdown());
  });

  it('has a row for every field the schema declares, each with its meaning', () => {
    const fields = configFields();
    const documented = new Set(fields.map((f) => f.path.split('.').at(-1)!.replace('[]', '')));
    const declared = new Set(propertyNames(z.toJSONSchema(configSchema, { io: 'input' })));
    expect([...declared].filter((name) => !documented.has(name))).toEqual([]);
    expect(fields.filter((f) => f.meaning === '' && !f.path.endsWith('[]')).map((f) => f.path)).toEqual([]);
  });

  it('gives types, defaults and what is required as validation has them', () => {
    const field = (path: string, when: readonly string[] = []) =>
      configFields().find((f) => f.path === path && f.when.join() === when.join());
    expect(field('target.edges')).toMatchObject({ type: 'array of URL, at least 1', required: true });
    expect(field('target.allowNonLoopback')).toMatchObject({ type: 'boolean', required: false, default: '`false`' });
    expect(field('writes')).toMatchObject({ type: '`"own"` or `"none"`', default: '`"own"`' });
    expect(field('window')).toMatchObject({ type: 'duration', required: false });
    expect(field('orgs[].keys.primary')).toMatchObject({ type: '`{"env": "NAME"}`', required: true });
    expect(field('revocation.trials')).toMatchObject({ type: 'integer, at least 1, at most 1,000', default: '`20`' });
    const disposable = ['`revocation.hook.type` `"disposable"`'];
    expect(field('revocation.hook.keys', disposable)).toMatchObject({ required: true });
    expect(
      field('revocation.hook.revoke.command', [...disposable, '`revocation.hook.revoke.type` `"command"`']),
    ).toMatchObject({
      type: 'string',
      required: true,
    });
    for (const kind of ['http', 'command', 'disposable']) {
      expect(committed).toContain(`### \`revocation.hook.type\` \`"${kind}"\``);
    }
  });
});
