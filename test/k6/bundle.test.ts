/** The k6 scripts type-check against @types/k6 alone, and their bundles import nothing but k6 modules. */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  bundleImports,
  exportK6Scripts,
  exportRevocationScript,
  isK6Module,
  k6BundleProblems,
  K6_SCRIPTS_DIR,
} from '../../src/k6/export.ts';
import { sustainedLoad } from '../../src/scenario/define.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'tiergate-k6-bundle-'));

function diagnostics(configFile: string): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configFile,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(String(d.messageText));
      },
    },
  );
  if (!parsed) throw new Error(`cannot read ${configFile}`);
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('the k6 scripts', () => {
  it('type-check with @types/k6 and no Node types (scenarios/k6/tsconfig.json)', () => {
    expect(diagnostics(join(K6_SCRIPTS_DIR, 'tsconfig.json'))).toEqual([]);
  }, 30_000);

  it('would fail the type-check if they used a Node API', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'bad.ts'), "import http from 'k6/http';\nhttp.get(process.env.BASE_URL ?? '');\n");
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: join(K6_SCRIPTS_DIR, 'tsconfig.json'),
        compilerOptions: { typeRoots: [join(K6_SCRIPTS_DIR, '../../node_modules/@types')] },
        include: ['./*.ts'],
      }),
    );
    expect(diagnostics(join(dir, 'tsconfig.json')).join('\n')).toMatch(/Cannot find name 'process'/);
  }, 30_000);
});

describe('exportK6Scripts', () => {
  it('writes one bundle per tier that imports only k6 modules and carries the scenario’s load shape', async () => {
    const out = tmp();
    const shape = sustainedLoad({ fleetOrgs: 7, p95Ms: 250 });
    const bundles = await exportK6Scripts({ outDir: out, shapes: { starter: shape } });
    expect(readdirSync(out).sort()).toEqual(['enterprise.js', 'professional.js', 'starter.js']);
    for (const b of bundles) {
      const code = readFileSync(b.path, 'utf8');
      expect(bundleImports(code).every(isK6Module)).toBe(true);
      expect(bundleImports(code)).toEqual(expect.arrayContaining(['k6/http', 'k6/metrics', 'k6/execution']));
      expect(k6BundleProblems(code)).toEqual([]);
      // The contract and the harness's header parsing are inlined, not imported.
      expect(code).toContain('x-ratelimit-remaining');
    }
    const starter = readFileSync(join(out, 'starter.js'), 'utf8');
    expect(starter).toContain('p(95)<250');
    expect(starter).toMatch(/orgs: 7/);
  });

  it('writes the revocation vantage script: k6 modules only, the key shown by prefix and last four, one VU per edge', async () => {
    const out = tmp();
    const script = await exportRevocationScript(out);
    expect(readdirSync(out)).toEqual(['revocation.js']);
    const code = readFileSync(script.path, 'utf8');
    expect(bundleImports(code)).toEqual(expect.arrayContaining(['k6/http', 'k6/metrics', 'k6/execution']));
    expect(bundleImports(code).every(isK6Module)).toBe(true);
    expect(k6BundleProblems(code)).toEqual([]);
    expect(code).toContain('tiergate_revocation_probe');
    expect(code).toContain('per-vu-iterations');
    // The redaction is inlined (src/contract/redact.ts, which imports nothing of Node's).
    expect(code).toMatch(/rest\.slice\(-4\)/);
  });

  it('refuses, writing nothing, a script that pulls in a Node module', async () => {
    const scripts = tmp();
    writeFileSync(
      join(scripts, 'starter.ts'),
      "import { readFileSync } from 'node:fs';\nimport http from 'k6/http';\nexport default function () { http.get(readFileSync('/x', 'utf8')); }\n",
    );
    const out = join(tmp(), 'out');
    await expect(exportK6Scripts({ outDir: out, tiers: ['starter'], scriptsDir: scripts })).rejects.toThrow(
      /starter\.js imports node:fs, which k6 does not provide/,
    );
    expect(() => readdirSync(out)).toThrow();
  });
});

describe('k6BundleProblems', () => {
  it.each([
    ['import http from "k6/http";\nimport { Trend } from "k6/metrics";', []],
    ['import exec from "k6/execution";\nexport * from "k6";', []],
    ['import fs from "node:fs";', ['imports node:fs, which k6 does not provide']],
    ['import "lodash";', ['imports lodash, which k6 does not provide']],
    ['export { x } from "./local.js";', ['imports ./local.js, which k6 does not provide']],
    [
      'const m = await import("https://jslib.k6.io/x.js");',
      ['imports https://jslib.k6.io/x.js, which k6 does not provide'],
    ],
    ['const z = require("zod");', ['imports zod, which k6 does not provide']],
    ['const name = "k6/http"; await import(name);', ['imports a computed module name, which cannot be checked']],
  ])('%s', (code, problems) => {
    expect(k6BundleProblems(code)).toEqual(problems);
  });
});
