/** docs/contract.md is written from the contract module, with an anchor per section of the spec; a stale one fails here. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTRACT_DOC_PATH, contractMarkdown } from '../../src/contract/contract-doc-source.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { SPEC_SECTIONS, linkSpecSections, specSection } from '../../src/contract/spec-sections-source.ts';

const committed = readFileSync(new URL(`../../${CONTRACT_DOC_PATH}`, import.meta.url), 'utf8');

describe('docs/contract.md', () => {
  it('is the one the contract module writes (if this fails: npm run generate)', () => {
    expect(committed).toBe(contractMarkdown(recruitingApi));
  });

  it('follows the contract: another figure or scope is another document', () => {
    const starter = { ...recruitingApi.tiers.starter, read: { value: 61, atLeast: false } };
    const changed = contractMarkdown({ ...recruitingApi, tiers: { ...recruitingApi.tiers, starter } });
    expect(changed).not.toBe(committed);
    expect(changed).toContain('| Starter | 61 | 10 | 5 |');
    expect(committed).toContain('| Starter | 60 | 10 | 5 |');
    expect(committed).toContain('| Enterprise / Custom | 2,500 or more | 500 or more | 100 or more |');
    for (const { scope } of recruitingApi.scopes) expect(committed).toContain(`| \`${scope}\` |`);
    for (const { path } of recruitingApi.endpoints) expect(committed).toContain(`\`${path}\``);
  });

  it('anchors every section of the spec once, as s<number>-<name>', () => {
    for (const { number, anchor } of SPEC_SECTIONS) {
      expect(anchor).toMatch(new RegExp(`^s${number.replace('.', '-')}-[a-z-]+$`));
      expect(committed.split(`<a id="${anchor}"></a>`)).toHaveLength(2);
    }
  });

  it('links a cited section to its anchor, and refuses a section the spec does not have', () => {
    expect(linkSpecSections('§7.1, §8', 'docs/contract.md')).toBe(
      `[§7.1](docs/contract.md#${specSection('7.1').anchor}), [§8](docs/contract.md#${specSection('8').anchor})`,
    );
    expect(() => linkSpecSections('§8.4', '')).toThrow(/§8\.4 is not a section/);
  });
});
