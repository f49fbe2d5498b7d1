/**
 * The README's table of checks, written from the catalogue (regenerate:
 * `npm run generate`; a test fails when the README's is stale).
 */
import { allChecks } from './catalogue.ts';

/** Where the table lies in the README. */
export const CHECK_TABLE_MARKERS = {
  begin: '<!-- check table: generated from src/checks -->',
  end: '<!-- end of check table -->',
} as const;

/** One row per check: its ID, what it asserts, its spec sections, and what it rests on besides the spec. */
export function checkTableMarkdown(): string {
  const rows = allChecks().map((c) => {
    const restsOn = c.assumptions.length === 0 ? 'the spec' : c.assumptions.map((a) => `\`${a}\``).join(', ');
    return `| ${c.id} | ${c.asserts} | ${c.spec} | ${restsOn} |`;
  });
  return ['| ID | asserts | spec | rests on |', '|---|---|---|---|', ...rows].join('\n');
}

/** The README with its check table replaced by `table` (the markers kept); null when the markers are missing. */
export function withCheckTable(readme: string, table: string): string | null {
  const begin = readme.indexOf(CHECK_TABLE_MARKERS.begin);
  const end = readme.indexOf(CHECK_TABLE_MARKERS.end);
  if (begin < 0 || end < begin) return null;
  return `${readme.slice(0, begin + CHECK_TABLE_MARKERS.begin.length)}\n${table}\n${readme.slice(end)}`;
}
