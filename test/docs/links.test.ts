/**
 * The README, docs/ and CONTRIBUTING.md: every relative link and anchor resolves, in the repository
 * and in the npm package (the files `npm pack` lists), and the README stays a five-minute read.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { brokenLinks, outlineOf } from '../helpers/markdown-links.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The documents checked, by path from the root. */
function documentPaths(): string[] {
  const docs = readdirSync(`${ROOT}docs`, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`);
  return ['README.md', 'CONTRIBUTING.md', ...docs].sort();
}

const documents = new Map(documentPaths().map((path) => [path, readFileSync(`${ROOT}${path}`, 'utf8')]));

/** The files of the package as `npm pack` would make it (its scripts not run: no build is needed to list docs/). */
let packed: ReadonlySet<string> = new Set();

beforeAll(async () => {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
  });
  const [tarball] = JSON.parse(stdout) as { files: { path: string }[] }[];
  packed = new Set(tarball!.files.map((f) => f.path));
}, 60_000);

describe('links in the README, docs/ and CONTRIBUTING.md', () => {
  it('resolve in the repository, anchors included', () => {
    expect(brokenLinks(documents, (path) => existsSync(`${ROOT}${path}`))).toEqual([]);
  });

  it('resolve in the packed package, which ships every one of these documents', () => {
    expect([...documents.keys()].filter((path) => !packed.has(path))).toEqual([]);
    expect(brokenLinks(documents, (path) => packed.has(path))).toEqual([]);
  });

  it('are caught when broken: a missing file, a missing anchor, a file the package leaves out', () => {
    const docs = new Map([
      [
        'README.md',
        [
          '# Tiergate, at a glance',
          '',
          '[ok](#tiergate-at-a-glance) [ok](docs/a.md#s8-limits) [ok](docs/a.md#limits) [ok](docs/a.md#limits-1)',
          '[gone](docs/b.md) [no anchor](docs/a.md#s9) [not shipped](src/cli.ts) [web](https://example.com/x)',
          '![picture](docs/images/report.png)',
          '',
          '```md',
          '[in a code block](nowhere.md)',
          '```',
        ].join('\n'),
      ],
      ['docs/a.md', '<a id="s8-limits"></a>\n\n## Limits\n\n## Limits\n\n[back](../README.md) [up](../../x.md)'],
    ]);
    const shipped = new Set(['README.md', 'docs/a.md', 'docs/images/report.png']);
    expect(brokenLinks(docs, (path) => shipped.has(path))).toEqual([
      'README.md: docs/b.md (no file docs/b.md)',
      'README.md: docs/a.md#s9 (no anchor #s9 in docs/a.md)',
      'README.md: src/cli.ts (no file src/cli.ts)',
      'docs/a.md: ../../x.md (no file ../x.md)',
    ]);
  });
});

describe('package.json', () => {
  it('names the repository, and a homepage and issue tracker in it, so links work where the package is installed', () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
      repository: { type: string; url: string };
      homepage: string;
      bugs: { url: string };
    };
    expect(pkg.repository).toEqual({ type: 'git', url: 'git+https://github.com/tiergate/tiergate.git' });
    const web = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    expect(pkg.homepage).toBe(`${web}#readme`);
    expect(pkg.bugs.url).toBe(`${web}/issues`);
  });
});

describe('the README', () => {
  const readme = documents.get('README.md')!;
  const lines = readme.trimEnd().split('\n');

  it('is a five-minute read: at most 250 lines, none over 100 characters', () => {
    expect(lines.length).toBeLessThanOrEqual(250);
    expect(lines.filter((line) => [...line].length > 100)).toEqual([]);
  });

  it('keeps the two commands CI and a checker run, verbatim', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });

  it('shows the report, and links every document of docs/ but the decision records', () => {
    const linked = new Set(outlineOf(readme).links.map((link) => link.href.split('#')[0]));
    expect(linked).toContain('docs/images/report.png');
    const docs = [...documents.keys()].filter(
      (path) => path.startsWith('docs/') && !path.startsWith('docs/decisions/'),
    );
    expect(docs.filter((path) => !linked.has(path))).toEqual([]);
  });
});
