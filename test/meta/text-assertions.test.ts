/**
 * Tests judge results by their reason codes and typed figures, not by the words rendered from them:
 * a sentence may be reworded without a test noticing, a figure may not. This scans every test for an
 * assertion that takes a result's `actual`, `notes` or `expected` apart as text, and fails on any
 * outside the rendering snapshot files, whose job is how those sentences read.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Where a test may pin a sentence: the rendering snapshot files. */
const RENDERING_SNAPSHOTS = join('test', 'verdicts', 'sentences') + sep;
const WORDS = new Set(['actual', 'notes', 'expected']);
/** The issue's own count, a grep: kept beside the AST scan, at most 40 over the whole of test/. */
const GREP_COUNT_LIMIT = 40;
const GREP = /expect\([^)]*\.(actual|notes|expected)/g;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Whether a node reads `.actual`, `.notes` or `.expected`. */
function readsWords(node: ts.Node): boolean {
  if (ts.isPropertyAccessExpression(node) && WORDS.has(node.name.text)) return true;
  return ts.forEachChild(node, readsWords) ?? false;
}

/** Text a matcher may compare a sentence with: a string, a template, a pattern, or a list holding one. */
function isText(node: ts.Expression): boolean {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node))
    return true;
  if (ts.isRegularExpressionLiteral(node)) return true;
  if (ts.isArrayLiteralExpression(node)) return node.elements.some((e) => isText(e));
  if (ts.isCallExpression(node)) return node.arguments.some((a) => isText(a)); // expect.stringContaining('…')
  return false;
}

/** Whether a matcher's argument reads the words, or wants `actual`, `notes` or `expected` to be some text. */
function wantsWords(node: ts.Node): boolean {
  if (ts.isPropertyAccessExpression(node) && WORDS.has(node.name.text)) return true;
  if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && WORDS.has(node.name.text)) {
    if (isText(node.initializer)) return true;
  }
  return ts.forEachChild(node, wantsWords) ?? false;
}

/** The innermost `expect(…)` call a matcher chain starts from. */
function expectCallOf(node: ts.Expression): ts.CallExpression | null {
  if (ts.isCallExpression(node)) {
    if (ts.isIdentifier(node.expression) && node.expression.text === 'expect') return node;
    return expectCallOf(node.expression);
  }
  if (ts.isPropertyAccessExpression(node)) return expectCallOf(node.expression);
  if (ts.isAwaitExpression(node)) return expectCallOf(node.expression);
  return null;
}

/**
 * Assertions on results' words in a source: an `expect(…)` whose value under test (its first
 * argument, not its message) reads `actual`, `notes` or `expected`, or whose matcher reads them or
 * wants them to be some text. A figure that happens to be called `expected` (a number) is not text.
 * Line numbers are 1-based.
 */
export function wordAssertions(fileName: string, text: string): number[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const lines = new Set<number>();
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const expectCall = expectCallOf(node.expression.expression);
      const underTest = expectCall?.arguments[0];
      const hit = underTest !== undefined && (readsWords(underTest) || node.arguments.some(wantsWords));
      if (hit) lines.add(source.getLineAndCharacterOfPosition(node.getStart()).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...lines].sort((a, b) => a - b);
}

const self = relative('.', new URL(import.meta.url).pathname);
const files = testFiles('test').filter((file) => file !== self);

describe('tests judge results by codes and figures', () => {
  it('no assertion outside the rendering snapshots takes actual, notes or expected apart as text', () => {
    const found = files
      .filter((file) => !file.startsWith(RENDERING_SNAPSHOTS))
      .flatMap((file) => wordAssertions(file, readFileSync(file, 'utf8')).map((line) => `${file}:${line}`));
    expect(found, 'assert the reason codes and data figures instead').toEqual([]);
  });

  it(`the issue's grep finds at most ${GREP_COUNT_LIMIT} over the whole of test/`, () => {
    const counts = files.map((file) => readFileSync(file, 'utf8').match(GREP)?.length ?? 0);
    expect(counts.reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(GREP_COUNT_LIMIT);
  });

  it('the scan sees a value under test and a matcher argument, not a message', () => {
    const probe = [
      "expect(f.actual).toBe('x');",
      "expect(f).toMatchObject({ notes: ['caveat'] });",
      'expect(f.verdict, f.actual).toBe("pass");',
      'expect(f.reasons).toEqual([{ code: "x", expected: 401 }]);',
      "expect(() => finding({ actual: 'a' })).toThrow();",
      'await expect(run(f.expected)).resolves.toBe(1);',
    ].join('\n');
    expect(wordAssertions('probe.ts', probe)).toEqual([1, 2, 6]);
  });
});
