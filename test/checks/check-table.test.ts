/** The check table of docs/checks.md is written from the catalogue, and a stale one fails here. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECK_IDS } from '../../src/catalogue/types.ts';
import {
  CHECK_TABLE_MARKERS,
  CHECK_TABLE_PATH,
  checkTableMarkdown,
  withCheckTable,
} from '../../src/checks/check-table.ts';
import { specSection } from '../../src/contract/spec-sections-source.ts';

const document = readFileSync(new URL(`../../${CHECK_TABLE_PATH}`, import.meta.url), 'utf8');

describe('the check table of docs/checks.md', () => {
  it('is the one the catalogue writes (if this fails: npm run generate)', () => {
    expect(withCheckTable(document, checkTableMarkdown())).toBe(document);
  });

  it('has one row per check, in catalogue order', () => {
    const rows = checkTableMarkdown().split('\n').slice(2);
    expect(rows.map((r) => r.split(' | ')[0]!.slice(2))).toEqual([...CHECK_IDS]);
  });

  it('links each spec section and assumption a check cites to the contract', () => {
    const row = checkTableMarkdown()
      .split('\n')
      .find((r) => r.startsWith('| QUOTA-READ |'));
    expect(row).toContain(
      `[§7.1](contract.md#${specSection('7.1').anchor}), [§8](contract.md#${specSection('8').anchor})`,
    );
    expect(row).toContain(
      '[`quota-classes`](contract.md#quota-classes), [`counted-requests`](contract.md#counted-requests)',
    );
  });

  it('tells a stale table from a current one, and a document without the markers', () => {
    const stale = document.replace(
      '| HDR-REMAINING | decrements by exactly one',
      '| HDR-REMAINING | decrements by one',
    );
    expect(stale).not.toBe(document);
    expect(withCheckTable(stale, checkTableMarkdown())).toBe(document);
    expect(withCheckTable(document.replace(CHECK_TABLE_MARKERS.end, ''), checkTableMarkdown())).toBeNull();
  });
});
