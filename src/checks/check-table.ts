/**
 * The table of checks in docs/checks.md, written from the catalogue (regenerate:
 * `npm run generate`; a test fails when the committed one is stale). Its spec sections and
 * assumptions link to docs/contract.md.
 */
import { linkSpecSections } from '../contract/spec-sections-source.ts';
import { allChecks } from './catalogue.ts';

/** Where the table is committed, from the repository's root. */
export const CHECK_TABLE_PATH = 'docs/checks.md';

/** Where the table lies in its document. */
export const CHECK_TABLE_MARKERS = {
  begin: '<!-- check table: generated from src/checks -->',
  end: '<!-- end of check table -->',
} as const;

/** The contract document, from the table's. */
const CONTRACT_DOC = 'contract.md';

/** One row per check: its ID, what it asserts, its spec sections, and what it rests on besides the spec. */
export function checkTableMarkdown(): string {
  const rows = allChecks().map((c) => {
    const restsOn =
      c.assumptions.length === 0 ? 'the spec' : c.assumptions.map((a) => `[\`${a}\`](${CONTRACT_DOC}#${a})`).join(', ');
    return `| ${c.id} | ${c.asserts} | ${linkSpecSections(c.spec, CONTRACT_DOC)} | ${restsOn} |`;
  });
  return ['| ID | asserts | spec | rests on |', '|---|---|---|---|', ...rows].join('\n');
}

/** `document` with its check table replaced by `table` (the markers kept); null when the markers are missing. */
export function withCheckTable(document: string, table: string): string | null {
  const begin = document.indexOf(CHECK_TABLE_MARKERS.begin);
  const end = document.indexOf(CHECK_TABLE_MARKERS.end);
  if (begin < 0 || end < begin) return null;
  return `${document.slice(0, begin + CHECK_TABLE_MARKERS.begin.length)}\n${table}\n${document.slice(end)}`;
}
