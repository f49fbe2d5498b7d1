import { readFile } from 'node:fs/promises';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testcaseName } from '../../src/report/junit.ts';
import { writeSampleRun, type SampleRun } from './fixtures.ts';

interface Attributes {
  readonly [name: `@_${string}`]: string;
}
interface Outcome extends Attributes {
  readonly '#text'?: string;
}
interface Testcase extends Attributes {
  readonly failure?: Outcome;
  readonly error?: Outcome;
  readonly skipped?: Outcome | '';
  readonly properties: { readonly property: Attributes[] };
}
interface Testsuite extends Attributes {
  readonly testcase: Testcase[];
}

describe('junit.xml', () => {
  let run: SampleRun;
  let xml: string;
  let suites: Testsuite[];
  let root: Attributes;
  beforeAll(async () => {
    run = await writeSampleRun();
    xml = await readFile(run.files.junit, 'utf8');
    const parser = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '@_',
      isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name),
    });
    const doc = parser.parse(xml) as { testsuites: Attributes & { testsuite: Testsuite[] } };
    root = doc.testsuites;
    suites = doc.testsuites.testsuite;
  });
  afterAll(() => run.cleanup());

  const cases = () => suites.flatMap((s) => s.testcase);
  const verdictOf = (c: Testcase) => c.properties.property.find((p) => p['@_name'] === 'verdict')?.['@_value'];

  it('is well-formed XML', () => {
    expect(XMLValidator.validate(xml)).toBe(true);
  });

  it('has one testcase per check result (check × tier × variant), in one suite per tier', () => {
    const expected = run.results.checks.map(testcaseName).sort();
    expect(
      cases()
        .map((c) => c['@_name'])
        .sort(),
    ).toEqual(expected);
    expect(suites.map((s) => s['@_name'])).toEqual([
      'tiergate.starter',
      'tiergate.professional',
      'tiergate.enterprise',
      'tiergate.all',
    ]);
    for (const suite of suites) expect(Number(suite['@_tests'])).toBe(suite.testcase.length);
  });

  it('counts failures, errors (inconclusive) and skipped as results.json does', () => {
    const counts = run.results.counts;
    expect(Number(root['@_tests'])).toBe(run.results.checks.length);
    expect(Number(root['@_failures'])).toBe(counts.fail);
    expect(Number(root['@_errors'])).toBe(counts.inconclusive);
    expect(Number(root['@_skipped'])).toBe(counts.skipped);
    expect(cases().filter((c) => c.failure !== undefined)).toHaveLength(counts.fail);
    expect(cases().filter((c) => c.error !== undefined)).toHaveLength(counts.inconclusive);
    expect(cases().filter((c) => c.skipped !== undefined)).toHaveLength(counts.skipped);
    for (const suite of suites) {
      const mine = suite.testcase;
      expect(Number(suite['@_failures'])).toBe(mine.filter((c) => c.failure !== undefined).length);
      expect(Number(suite['@_errors'])).toBe(mine.filter((c) => c.error !== undefined).length);
      expect(Number(suite['@_skipped'])).toBe(mine.filter((c) => c.skipped !== undefined).length);
    }
  });

  it('gives a failure expected and actual, and marks inconclusive as an error saying so', () => {
    const failed = cases().find((c) => c['@_name'] === 'QUOTA-READ [starter] sequential')!;
    expect(verdictOf(failed)).toBe('fail');
    expect(failed.failure?.['@_message']).toMatch(
      /^expected requests 1–60 admitted, 429 at request 61 \(Limit 60\); actual 429 1 request early/,
    );
    expect(failed.failure?.['@_type']).toBe('QUOTA-READ');

    for (const c of cases().filter((c) => verdictOf(c) === 'inconclusive')) {
      expect(c.error?.['@_type']).toBe('inconclusive');
      expect(c.error?.['@_message']).toMatch(/^inconclusive: .+; expected .+; actual .+/);
      expect(c.failure).toBeUndefined();
      expect(c.skipped).toBeUndefined();
    }
    const skipped = cases().find((c) => c['@_name'] === 'ROTATION [starter]')!;
    expect((skipped.skipped as Outcome)['@_message']).toBe('no key hook configured: a new key cannot be provisioned');
  });
});
