/**
 * The package as a user meets it: `npm pack` (which builds), the tarball installed into an empty
 * project of its own (CommonJS, as `npm init` writes it), then `npx tiergate` there: list, a short
 * run on the shipped scenarios, a run on the project's own TypeScript scenario, k6 export, and
 * `import { runSuite } from 'tiergate'` type-checked with this repository's TypeScript. One pack and
 * one install, shared; the commands run at once (each run has an embedded target of its own).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectUsageError } from '../helpers/cli.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'tiergate-package-'));
const project = join(work, 'project');

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function sh(command: string, args: readonly string[], cwd: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Ran, or the command's output as the failure message. */
async function ok(command: string, args: readonly string[], cwd: string): Promise<Ran> {
  const ran = await sh(command, args, cwd);
  if (ran.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${ran.code}\n${ran.stdout}\n${ran.stderr}`);
  return ran;
}

const npxTiergate = (...args: string[]) => sh('npx', ['tiergate', ...args], project);
const checksRun = (out: string) =>
  (
    JSON.parse(readFileSync(join(project, out, 'latest', 'results.json'), 'utf8')) as {
      checks: { id: string; verdict: string }[];
    }
  ).checks.map((c) => `${c.id} ${c.verdict}`);

/** The project's own files, written before any command runs (tsx reads tsconfig.json as it loads a scenario). */
function writeProjectFiles(): void {
  const files = {
    // A scenario of its own: TypeScript, importing tiergate as docs/cli.md says.
    'my-starter.ts': [
      "import { defineScenario, type CheckId } from 'tiergate';",
      '',
      "const checks: CheckId[] = ['AUTH-MISSING'];",
      "export default defineScenario({ tier: 'starter', orgs: 2, checks });",
    ],
    'broken.ts': [
      "import { defineScenario } from 'tiergate';",
      "export default defineScenario({ tier: 'starter', orgs: });",
    ],
    'use-library.ts': [
      "import { runSuite, type Io, type RunOptions } from 'tiergate';",
      'export const gate = async (options: RunOptions, io: Io): Promise<number> => (await runSuite(options, io)).exitCode;',
      '// @ts-expect-error runSuite is a function, so the declarations are not `any`',
      'export const notANumber: number = runSuite;',
    ],
    'tsconfig.json': [
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(REPO, 'node_modules/@types')],
        },
        files: ['use-library.ts', 'my-starter.ts'],
      }),
    ],
  };
  for (const [name, lines] of Object.entries(files)) writeFileSync(join(project, name), `${lines.join('\n')}\n`);
}

let shipped: string[] = [];

beforeAll(async () => {
  const packed = await ok('npm', ['pack', '--json', '--pack-destination', work], REPO);
  const [tarball] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  shipped = tarball!.files.map((f) => f.path).sort();
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'tiergate-user', version: '1.0.0', private: true }),
  );
  await ok(
    'npm',
    ['install', join(work, tarball!.filename), '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'],
    project,
  );
  writeProjectFiles();
}, 150_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the npm package', () => {
  it('ships the compiled CLI and library, the scenarios, the k6 sources, the schemas and the documents, nothing else', () => {
    const allowed =
      /^(package\.json|README\.md|CONTRIBUTING\.md|bin\/tiergate\.js|dist\/.+\.(js|d\.ts)|scenarios\/(starter|professional|enterprise)\.ts|scenarios\/k6\/.+\.ts|schemas\/[a-z]+\.schema\.json|docs\/.+\.(md|png))$/;
    expect(shipped.filter((path) => !allowed.test(path))).toEqual([]);
    for (const path of [
      'bin/tiergate.js',
      'dist/cli.js',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/reference-server/thread-entry.js',
      'dist/scenarios/starter.js',
      'scenarios/k6/starter.ts',
      'schemas/config.schema.json',
      'CONTRIBUTING.md',
      'docs/configuration.md',
      'docs/contract.md',
    ]) {
      expect(shipped).toContain(path);
    }
    expect(shipped.filter((path) => path.startsWith('dist/results/generate-schema'))).toEqual([]);
  });

  describe.concurrent('installed in a project of its own', () => {
    it('npx tiergate list', async () => {
      const listed = await npxTiergate('list');
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(/^AUTH-MISSING\s+§5\.1/m);
    });

    it('npx tiergate run, on the shipped scenarios', async () => {
      const ran = await npxTiergate(
        'run',
        '--window',
        '2s',
        '--tiers',
        'starter',
        '--checks',
        'AUTH-MISSING,HDR-PRESENT',
        '--out',
        'reports-shipped',
      );
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      expect(checksRun('reports-shipped').sort()).toEqual(['AUTH-MISSING pass', 'HDR-PRESENT pass']);
    });

    it("npx tiergate run --scenario my-starter.ts: the project's own TypeScript scenario, importing tiergate", async () => {
      const ran = await npxTiergate(
        'run',
        '--window',
        '2s',
        '--tiers',
        'starter',
        '--checks',
        'AUTH-MISSING,HDR-PRESENT',
        '--scenario',
        'my-starter.ts',
        '--out',
        'reports-mine',
      );
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      // The scenario's checks narrowed the run: it was loaded, and used.
      expect(checksRun('reports-mine')).toEqual(['AUTH-MISSING pass']);
    });

    it('a scenario that does not compile is one line naming the place, exit 2', async () => {
      // The bin npx runs, without npm's own warnings on stderr.
      const ran = await sh(
        join(project, 'node_modules/.bin/tiergate'),
        ['run', '--dry-run', '--scenario', 'broken.ts', '--tiers', 'starter'],
        project,
      );
      expectUsageError(ran, /--scenario broken\.ts: cannot load it \(.*broken\.ts:2:\d+\)/);
    });

    it('npx tiergate k6 export bundles the k6 scripts from the compiled modules', async () => {
      const exported = await npxTiergate('k6', 'export', '--out', 'k6');
      expect(exported.code, exported.stderr).toBe(0);
      expect(readdirSync(join(project, 'k6')).sort()).toEqual(['enterprise.js', 'professional.js', 'starter.js']);
      expect(readFileSync(join(project, 'k6', 'starter.js'), 'utf8')).toContain('x-ratelimit-remaining');
    });

    it("import { runSuite } from 'tiergate' type-checks, with real types", async () => {
      const checked = await sh(
        process.execPath,
        [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
        project,
      );
      expect(checked.stdout + checked.stderr).toBe('');
      expect(checked.code).toBe(0);
    });
  });
});
