/**
 * What to do about a reason code, in words: the one rendering `tiergate explain` prints and
 * docs/troubleshooting.md holds (regenerate: `npm run generate`; a test fails when it is stale).
 */
import { REASON_CODES, reasonDefinition, type ReasonCode } from './index.ts';

export const TROUBLESHOOTING_PATH = 'docs/troubleshooting.md';

/** One code's entry: what it means, the usual causes, what to change. */
export function reasonGuide(code: ReasonCode): string {
  const d = reasonDefinition(code);
  return [
    `${code} (${d.verdicts.join(', ')})`,
    `  ${d.means}`,
    '  Usual causes:',
    ...d.causes.map((c) => `  - ${c}`),
    '  What to change:',
    ...d.change.map((c) => `  - ${c}`),
  ].join('\n');
}

/** Every code, as docs/troubleshooting.md holds them. */
export function troubleshootingMarkdown(): string {
  const sections = REASON_CODES.map((code) => {
    const d = reasonDefinition(code);
    return [
      `## ${code}`,
      '',
      `*${d.verdicts.join(', ')}.* ${d.means}`,
      '',
      'Usual causes:',
      '',
      ...d.causes.map((c) => `- ${c}`),
      '',
      'What to change:',
      '',
      ...d.change.map((c) => `- ${c}`),
      '',
    ].join('\n');
  });
  return [
    '# Troubleshooting: what a reason code means and what to do',
    '',
    '<!-- Generated from src/catalogue/reasons/ by `npm run generate`; do not edit by hand. -->',
    '',
    'A result that is not a plain pass carries one or more reason codes (`reasons` in results.json).',
    '`tiergate explain CODE` prints the same entry as this page.',
    '',
    ...REASON_CODES.map((code) => `- [${code}](#${code})`),
    '',
    ...sections,
  ].join('\n');
}
