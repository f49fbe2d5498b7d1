/**
 * `tiergate k6 export`: bundles scenarios/k6/<tier>.ts with esbuild into one self-contained
 * `<tier>.js` per tier (k6 and k6/* left as imports, everything else inlined: the contract, the
 * header parsing, the scenario's LoadShape), then checks each bundle imports nothing but k6 modules:
 * a Node built-in or a package that slipped in would load in Node and fail in k6. With --revocation,
 * scenarios/k6/revocation.ts becomes `revocation.js`, the script a revocation vantage point runs.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinModules } from 'node:module';
import { build, type Plugin } from 'esbuild';
import { TIER_NAMES, type TierName } from '../contract/types.ts';
import { TiergateError } from '../util/errors.ts';
import { COMPILED, MODULES_ROOT, PACKAGE_ROOT } from '../util/own-files.ts';
import type { LoadShape } from '../scenario/define.ts';
import { RATE_LIMIT_DIALECTS } from '../contract/rate-limit-dialects.ts';
import { SPEC_READER, type RateLimitReader } from '../measure/rate-limit-reading.ts';

/** Where the k6 sources live (scenarios/k6 in the package). */
export const K6_SCRIPTS_DIR = fileURLToPath(new URL('scenarios/k6/', PACKAGE_ROOT));

export interface K6ExportOptions {
  readonly outDir: string;
  readonly tiers?: readonly TierName[];
  /** Each tier's LoadShape (its scenario's `load`), inlined into the bundle; absent: the script's default. */
  readonly shapes?: Readonly<Partial<Record<TierName, LoadShape | null>>>;
  /** Sources to bundle; default K6_SCRIPTS_DIR. */
  readonly scriptsDir?: string;
  /** The rate-limit dialect the scripts read (`--declare-headers`); default §8's X-RateLimit-*. */
  readonly rateLimitReader?: RateLimitReader;
}

export interface K6Bundle {
  readonly tier: TierName;
  /** File name within the output directory: `starter.js`. */
  readonly file: string;
  readonly path: string;
  readonly code: string;
  /** Module specifiers the bundle imports (all k6 ones, or the export failed). */
  readonly imports: readonly string[];
}

const SPECIFIER_PATTERNS = [
  /\bimport\s*(?:[\w$*{},\s]+?\s*from\s*)?["']([^"']+)["']/g,
  /\bexport\s*(?:\*(?:\s+as\s+[\w$]+)?|\{[^}]*\})\s*from\s*["']([^"']+)["']/g,
  /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
  /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
];
const COMPUTED_IMPORT = /\b(?:import|require)\s*\(\s*(?!["'])[^)\s]/;

export function isK6Module(specifier: string): boolean {
  return specifier === 'k6' || specifier.startsWith('k6/');
}

/** Every module specifier a bundle's code imports, in order of appearance, without duplicates. */
export function bundleImports(code: string): string[] {
  const found = new Set<string>();
  for (const pattern of SPECIFIER_PATTERNS) {
    for (const match of code.matchAll(pattern)) found.add(match[1]!);
  }
  return [...found];
}

/** What is wrong with a bundle for k6: imports of anything but k6 modules, or computed imports. */
export function k6BundleProblems(code: string): string[] {
  const problems = bundleImports(code)
    .filter((s) => !isK6Module(s))
    .map((s) => `imports ${s}, which k6 does not provide`);
  if (COMPUTED_IMPORT.test(code)) problems.push('imports a computed module name, which cannot be checked');
  return problems;
}

/** Node built-ins stay imports (so the check below names them) instead of failing to resolve. */
const NODE_BUILTINS = new Set(builtinModules);
const keepNodeBuiltins: Plugin = {
  name: 'tiergate-node-builtins',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('node:') || NODE_BUILTINS.has(args.path.split('/')[0]!)
        ? { path: args.path, external: true }
        : undefined,
    );
  },
};

/**
 * The k6 sources import tiergate's own modules from src/ (the contract, the header parsing), which
 * the package does not ship: compiled, each such import bundles the module's compiled twin in dist/.
 */
const SOURCES_DIR = fileURLToPath(new URL('src/', PACKAGE_ROOT));
const COMPILED_DIR = fileURLToPath(MODULES_ROOT);
const compiledTwins: Plugin = {
  name: 'tiergate-compiled-twins',
  setup(b) {
    b.onResolve({ filter: /\.ts$/ }, (args) => {
      const inSources = relative(SOURCES_DIR, resolve(args.resolveDir, args.path));
      if (inSources.startsWith('..') || isAbsolute(inSources)) return undefined;
      return { path: join(COMPILED_DIR, inSources.replace(/\.ts$/, '.js')) };
    });
  },
};

/**
 * What the scripts are told of a declared dialect (scenarios/k6/lib/rate-limit.ts K6RateLimitDialect):
 * its name, its fields from the contract's data, and the policy read. Under §8's X-RateLimit-* nothing:
 * the scripts read the contract's header names, as a script run unbundled does.
 */
function dialectDefine(reader: RateLimitReader): Record<string, string> {
  if (reader.dialect === 'x-ratelimit') return {};
  const { fields } = RATE_LIMIT_DIALECTS[reader.dialect];
  return {
    TIERGATE_RATE_LIMIT_DIALECT: JSON.stringify({
      dialect: reader.dialect,
      fields,
      policyName: reader.policies.read ?? null,
    }),
  };
}

export function bundleTier(
  tier: TierName,
  shape: LoadShape | null | undefined,
  scriptsDir = K6_SCRIPTS_DIR,
  reader: RateLimitReader = SPEC_READER,
): Promise<{ code: string; metaImports: string[] }> {
  return bundleScript(
    tier,
    `the ${tier} tier`,
    { ...(shape ? { TIERGATE_LOAD_SHAPE: JSON.stringify(shape) } : {}), ...dialectDefine(reader) },
    scriptsDir,
  );
}

/** One script of scenarios/k6 (`<name>.ts`) bundled, with `define` replacements. */
async function bundleScript(
  name: string,
  what: string,
  define: Record<string, string>,
  scriptsDir: string,
): Promise<{ code: string; metaImports: string[] }> {
  const result = await build({
    plugins: COMPILED ? [keepNodeBuiltins, compiledTwins] : [keepNodeBuiltins],
    entryPoints: [join(scriptsDir, `${name}.ts`)],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2020',
    external: ['k6', 'k6/*'],
    define,
    metafile: true,
    outfile: `${name}.js`,
    logLevel: 'silent',
    legalComments: 'none',
    banner: {
      js: `// tiergate k6 script for ${what}: bundled by \`tiergate k6 export\`; edit scenarios/k6/, not this file.`,
    },
  }).catch((error: { errors?: { text: string; location?: { file: string; line: number } | null }[] }) => {
    const first = error.errors?.[0];
    const where = first?.location ? ` (${first.location.file}:${first.location.line})` : '';
    throw new TiergateError('TG_USAGE', `k6 export: cannot bundle ${name}.ts: ${first?.text ?? String(error)}${where}`);
  });
  const output = result.outputFiles?.[0];
  if (!output) throw new Error(`esbuild produced no output for ${name}`);
  const metaImports = Object.values(result.metafile?.outputs ?? {}).flatMap((o) => o.imports.map((i) => i.path));
  return { code: output.text, metaImports };
}

/** A bundle's problems for k6: anything imported that k6 does not provide. */
function unfitImports(code: string, metaImports: readonly string[]): string[] {
  return [
    ...new Set([
      ...metaImports.filter((s) => !isK6Module(s)).map((s) => `imports ${s}, which k6 does not provide`),
      ...k6BundleProblems(code),
    ]),
  ];
}

/** The revocation vantage script (scenarios/k6/revocation.ts) bundled and checked: it imports only k6 modules. */
export async function bundleRevocationScript(scriptsDir = K6_SCRIPTS_DIR): Promise<{ readonly code: string }> {
  const { code, metaImports } = await bundleScript('revocation', 'a revocation vantage point', {}, scriptsDir);
  const problems = unfitImports(code, metaImports);
  if (problems.length > 0)
    throw new TiergateError('TG_USAGE', `k6 export: revocation.js must import only k6 modules: ${problems.join('; ')}`);
  return { code };
}

/** The revocation vantage script bundled, checked and written as `revocation.js`; its path and code. */
export async function exportRevocationScript(
  outDir: string,
  scriptsDir = K6_SCRIPTS_DIR,
): Promise<{ readonly path: string; readonly code: string; readonly imports: readonly string[] }> {
  const { code } = await bundleRevocationScript(scriptsDir);
  await mkdir(outDir, { recursive: true });
  const path = join(outDir, 'revocation.js');
  await writeFile(path, code, 'utf8');
  return { path, code, imports: bundleImports(code) };
}

/** Bundle, check and write one `<tier>.js` per tier; throws before writing anything if a bundle is unfit. */
export async function exportK6Scripts(options: K6ExportOptions): Promise<readonly K6Bundle[]> {
  const tiers = options.tiers ?? TIER_NAMES;
  const bundles: K6Bundle[] = [];
  const problems: string[] = [];
  for (const tier of tiers) {
    const { code, metaImports } = await bundleTier(
      tier,
      options.shapes?.[tier],
      options.scriptsDir,
      options.rateLimitReader,
    );
    const found = unfitImports(code, metaImports);
    problems.push(...found.map((p) => `${tier}.js ${p}`));
    bundles.push({
      tier,
      file: `${tier}.js`,
      path: join(options.outDir, `${tier}.js`),
      code,
      imports: bundleImports(code),
    });
  }
  if (problems.length > 0)
    throw new TiergateError('TG_USAGE', `k6 export: the bundles must import only k6 modules: ${problems.join('; ')}`);
  await mkdir(options.outDir, { recursive: true });
  for (const bundle of bundles) await writeFile(bundle.path, bundle.code, 'utf8');
  return bundles;
}
