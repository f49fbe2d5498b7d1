/**
 * Tests judge results by their reason codes and figures, not by the words rendered from them. This
 * counts assertions that take `.actual`, `.notes` or `.expected` apart as text, and holds them to a
 * ceiling that only goes down (issue 28 asks at most 40, outside a few rendering snapshot files).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';

/** Where the count stands now; lower it as assertions move to codes, never raise it. */
const CEILING = 101;
const TEXT_ASSERTION = /expect\([^)]*\.(actual|notes|expected)/g;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

it(`assertions on results' words stay at most ${CEILING}, each new one a code instead`, () => {
  const self = relative('.', new URL(import.meta.url).pathname);
  const counts = testFiles('test')
    .filter((file) => file !== self)
    .map((file) => ({ file, count: readFileSync(file, 'utf8').match(TEXT_ASSERTION)?.length ?? 0 }))
    .filter((f) => f.count > 0);
  const total = counts.reduce((sum, f) => sum + f.count, 0);
  const byFile = counts.map((f) => `${f.file}: ${f.count}`).join('\n');
  expect(total, byFile).toBeLessThanOrEqual(CEILING);
});
