/** The sample resumes in fixtures/resumes/ are what their names say, and tiny. */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeResume, detectFormat } from '../../src/reference-server/resume-analysis.ts';
import { FAULT_NAMES } from '../../src/reference-server/faults.ts';
import { VARIANT_NAMES } from '../../src/reference-server/variants.ts';

const dir = new URL('../../fixtures/resumes/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, dir));

describe('fixtures/resumes', () => {
  it.each([
    ['jane-doe.txt', 'text'],
    ['jane-doe.pdf', 'pdf'],
    ['jane-doe.docx', 'docx'],
  ] as const)('%s is detected as %s and analysed', (name, format) => {
    const content = read(name);
    expect(content.length).toBeLessThan(4096);
    expect(detectFormat(content)).toBe(format);
    const result = analyzeResume({ name, mimeType: 'application/octet-stream', content });
    expect(result.skills).toEqual(expect.arrayContaining(['TypeScript', 'Node.js', 'PostgreSQL', 'Kubernetes']));
    expect(result.experience_years).toBe(8);
  });

  it('the PDF ends with a trailer and the DOCX is a zip holding word/document.xml', () => {
    const pdf = read('jane-doe.pdf').toString('latin1');
    expect(pdf.startsWith('%PDF-1.4\n')).toBe(true);
    expect(pdf.trimEnd().endsWith('%%EOF')).toBe(true);
    const docx = read('jane-doe.docx');
    expect(docx.readUInt32LE(docx.length - 22)).toBe(0x06054b50);
    expect(docx.toString('latin1')).toContain('word/document.xml');
    expect(readdirSync(dir).sort()).toEqual(['jane-doe.docx', 'jane-doe.pdf', 'jane-doe.txt']);
  });
});

describe('fault tests', () => {
  it('every fault in the catalogue is exercised over HTTP by a test in test/reference-server', () => {
    const sources = ['faults-quota', 'faults-replies', 'faults-access', 'faults-limiter', 'faults-dialect']
      .map((f) => readFileSync(new URL(`./${f}.test.ts`, import.meta.url), 'utf8'))
      .join('\n');
    expect(FAULT_NAMES.filter((name) => !sources.includes(`'${name}'`))).toEqual([]);
  });

  it('every variant in the catalogue is exercised over HTTP by a test in test/reference-server/variants.test.ts', () => {
    const source = readFileSync(new URL('./variants.test.ts', import.meta.url), 'utf8');
    expect(VARIANT_NAMES.filter((name) => !source.includes(`describe('${name}'`))).toEqual([]);
  });
});
