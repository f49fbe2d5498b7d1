/** The documented example config is valid, and the committed editor schema is the generated one. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configJsonSchemaText } from '../../src/config/json-schema.ts';
import { parseConfig } from '../../src/config/load.ts';

describe('tiergate.config.json', () => {
  it('fixtures/tiergate.config.example.json parses into typed config', () => {
    const json: unknown = JSON.parse(
      readFileSync(new URL('../../fixtures/tiergate.config.example.json', import.meta.url), 'utf8'),
    );
    const config = parseConfig(json, 'tiergate.config.example.json');
    expect(config.window).toBe(60_000);
    expect(config.orgs.map((o) => o.tier)).toEqual([
      'starter',
      'starter',
      'professional',
      'professional',
      'enterprise',
      'enterprise',
      'professional',
    ]);
    expect(config.orgs.filter((o) => o.limits).map((o) => [o.name, o.limits])).toEqual([
      ['enterprise-a', { read: 10_000, ingest: 2000, concurrency: 250 }],
      ['enterprise-b', { read: 5000 }],
    ]);
    expect(config.revocation?.hook.type).toBe('command');
    expect(config.assumptions).toEqual({ 'head-bootstrap-free': false });
    // §8's own dialect, written out: where a deployment that speaks another would declare it.
    expect(config.headers).toEqual({ dialect: 'x-ratelimit', policies: {} });
  });

  it('declared assumptions: only those the checks honour, as booleans, each problem named by path', () => {
    const json = JSON.parse(
      readFileSync(new URL('../../fixtures/tiergate.config.example.json', import.meta.url), 'utf8'),
    ) as Record<string, unknown>;
    expect(() => parseConfig({ ...json, assumptions: { 'fixed-windows': false } }, 'mine.json')).toThrow(
      /assumptions.*fixed-windows/,
    );
    expect(() => parseConfig({ ...json, assumptions: { 'head-bootstrap-free': 'no' } }, 'mine.json')).toThrow(
      /assumptions\.head-bootstrap-free/,
    );
    expect(parseConfig({ ...json, assumptions: { 'bulk-counts-per-resume': false } }, 'mine.json').assumptions).toEqual(
      { 'bulk-counts-per-resume': false },
    );
  });

  it('every field of the editor schema has a description, for editors to show where it is written', () => {
    const undescribed: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (typeof node !== 'object' || node === null) return;
      const n = node as Record<string, unknown>;
      for (const [name, field] of Object.entries((n['properties'] ?? {}) as Record<string, Record<string, unknown>>)) {
        if (typeof field['description'] !== 'string') undescribed.push(`${path}.${name}`);
        walk(field, `${path}.${name}`);
      }
      for (const branch of ['anyOf', 'oneOf'] as const)
        ((n[branch] ?? []) as unknown[]).forEach((b, i) => walk(b, `${path}(${branch} ${i})`));
      walk(n['items'], `${path}[]`);
    };
    walk(JSON.parse(configJsonSchemaText()), '');
    expect(undescribed).toEqual([]);
  });

  it('schemas/config.schema.json is the one the zod schema generates', () => {
    // If this fails: npm run generate
    expect(readFileSync(new URL('../../schemas/config.schema.json', import.meta.url), 'utf8')).toBe(
      configJsonSchemaText(),
    );
  });
});
