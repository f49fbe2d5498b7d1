/** The README's check table is written from the catalogue, and a stale one fails here. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECK_IDS } from '../../src/catalogue/types.ts';
import { CHECK_TABLE_MARKERS, checkTableMarkdown, withCheckTable } from '../../src/checks/check-table.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe("the README's check table", () => {
  it('is the one the catalogue writes (if this fails: npm run generate)', () => {
    expect(withCheckTable(readme, checkTableMarkdown())).toBe(readme);
  });

  it('has one row per check, in catalogue order', () => {
    const rows = checkTableMarkdown().split('\n').slice(2);
    expect(rows.map((r) => r.split(' | ')[0]!.slice(2))).toEqual([...CHECK_IDS]);
  });

  it('tells a stale table from a current one, and a README without the markers', () => {
    const stale = readme.replace('| HDR-REMAINING | decrements by exactly one', '| HDR-REMAINING | decrements by one');
    expect(stale).not.toBe(readme);
    expect(withCheckTable(stale, checkTableMarkdown())).toBe(readme);
    expect(withCheckTable(readme.replace(CHECK_TABLE_MARKERS.end, ''), checkTableMarkdown())).toBeNull();
  });
});
