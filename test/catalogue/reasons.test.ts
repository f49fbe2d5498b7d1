/**
 * Reason codes: each renders its sentence from its figures; `tiergate explain` and
 * docs/troubleshooting.md say the same thing from the same table, and the document is not stale.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  because,
  isReasonCode,
  REASON_AREAS,
  REASON_CODES,
  reasonText,
  whyLines,
} from '../../src/catalogue/reasons/index.ts';
import { reasonGuide, TROUBLESHOOTING_PATH, troubleshootingMarkdown } from '../../src/catalogue/reasons/guide.ts';
import { expectUsageError, runCli } from '../helpers/cli.ts';

describe('reason codes', () => {
  it('render their sentence from their figures', () => {
    expect(reasonText(because('no-room-to-measure', { room: 3, needed: 7 }))).toBe(
      "the window's ingest quota has room for 3, not the 7 uploads a measurement spends",
    );
    expect(reasonText(because('far-deployment', { edges: ['https://a.example', 'https://b.example'] }))).toMatch(
      /^https:\/\/a\.example, https:\/\/b\.example are not loopback addresses: /,
    );
  });

  it('come before the other notes in what a result says', () => {
    const lines = whyLines({ reasons: [because('never-refused', { sent: 62 })], notes: ['a caveat'] });
    expect(lines).toEqual(['no request was rejected among the 62 sent', 'a caveat']);
  });

  it('belong to one area each: no area declares a code another does', () => {
    const declared = Object.values(REASON_AREAS).flatMap((table) => Object.keys(table));
    expect(declared.length).toBe(REASON_CODES.length);
  });

  it('are kebab-case, and every one says what to change', () => {
    for (const code of REASON_CODES) {
      expect(code).toMatch(/^[a-z]+(-[a-z0-9]+)*$/);
      expect(reasonGuide(code)).toMatch(/What to change:\n  - \S/);
    }
    expect(isReasonCode('window-rolled-over-typo')).toBe(false);
  });

  it('are each asserted, with their figures, by a unit test that produces them', () => {
    // A code no unit test names is a code no unit test checks: its producer could drop or garble it.
    const unitTests = testFiles('test').filter((f) => !/^test\/(e2e|soak|meta|catalogue)\//.test(f));
    const named = new Set(unitTests.flatMap((f) => readFileSync(f, 'utf8').match(/'[a-z0-9]+(?:-[a-z0-9]+)*'/g) ?? []));
    expect(REASON_CODES.filter((code) => !named.has(`'${code}'`))).toEqual([]);
  });

  it(`${TROUBLESHOOTING_PATH} is the one the codes generate (npm run generate)`, () => {
    expect(readFileSync(TROUBLESHOOTING_PATH, 'utf8')).toBe(troubleshootingMarkdown());
  });
});

describe('tiergate explain', () => {
  it('prints what a code means, its causes and what to change', async () => {
    const result = await runCli(['explain', 'no-second-key']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${reasonGuide('no-second-key')}\n`);
    expect(result.stdout).toContain('orgs[].keys.secondary');
  });

  it('lists every code without one', async () => {
    const result = await runCli(['explain']);
    expect(result.code).toBe(0);
    expect(
      result.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual([...REASON_CODES]);
  });

  it('names an unknown code in one line, exit 2', async () => {
    expectUsageError(await runCli(['explain', 'no-such-code']), /^tiergate: explain no-such-code: no such reason code/);
  });
});

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}
