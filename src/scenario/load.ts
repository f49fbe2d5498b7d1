/**
 * Scenario files are TypeScript (or JavaScript) modules whose default export is a `defineScenario(...)`
 * value. They are loaded once, at the boundary, and checked: a file that does not export a scenario
 * is a usage error naming the file and what is wrong.
 */
import { access } from 'node:fs/promises';
import { register } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { CHECK_IDS } from '../catalogue/types.ts';
import { TIER_NAMES, type TierName } from '../contract/types.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import { messageOf, UsageError } from '../util/errors.ts';
import { COMPILED, MODULES_ROOT, PACKAGE_ROOT } from '../util/own-files.ts';
import { BULK_POLICIES, type Scenario } from './define.ts';
import { parseThresholds } from '../config/thresholds.ts';
import { REVOCATION_LIMITS } from '../config/defaults.ts';

const loadShape = z.strictObject({
  endpoint: z
    .string()
    .refine((id) => recruitingApi.endpoints.some((e) => e.id === id), 'an endpoint id of the contract, e.g. jobs-list'),
  phases: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        rateMultiple: z.number().positive().max(100),
        windows: z.number().int().min(1).max(100),
        orgs: z.number().int().min(1).max(100),
      }),
    )
    .min(1),
  thresholds: z.record(z.string(), z.array(z.string())),
});

// Strict: a misspelt field (`revocaton`) is an error, not a silently ignored default.
const scenarioShape = z.strictObject({
  tier: z.enum(TIER_NAMES),
  description: z.string(),
  orgs: z.number().int().min(1).max(26),
  checks: z.union([z.literal('all'), z.array(z.enum(CHECK_IDS))]),
  quota: z.strictObject({
    variants: z.array(z.enum(['sequential', 'burst'])),
    bulk: z.enum(BULK_POLICIES).optional(),
  }),
  revocation: z.strictObject({
    trials: z.number().int().min(1).max(REVOCATION_LIMITS.trials),
    intervalMs: z.number().min(1).max(10_000),
    settleMs: z.number().min(0).max(600_000),
    parallel: z.number().int().min(1).max(REVOCATION_LIMITS.parallel).optional(),
    // A share and a level, each a fraction in (0, 1): { share: 0.99, level: 0.95 }.
    confidence: z
      .strictObject({ share: z.number().gt(0).lt(1), level: z.number().gt(0).lt(1) })
      .nullable()
      .optional(),
  }),
  load: loadShape.nullable(),
});

/** The scenarios shipped in scenarios/, one per tier (compiled into dist/scenarios/ with the rest of tiergate). */
export function defaultScenarioFile(tier: TierName): string {
  return fileURLToPath(
    COMPILED ? new URL(`scenarios/${tier}.js`, MODULES_ROOT) : new URL(`scenarios/${tier}.ts`, PACKAGE_ROOT),
  );
}

const TYPESCRIPT = /\.[cm]?ts$/;

/**
 * A scenario is an ES module, `.ts` included, whatever the `type` of the package around it: tsx
 * alone would compile a `.ts` file in a CommonJS package to CommonJS, which cannot load tiergate on
 * Node 20. This resolve hook, registered before tsx's (so it answers tsx's own lookups), says so.
 */
const TS_IS_ESM = `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  return resolved.url.startsWith('file:') && new URL(resolved.url).pathname.endsWith('.ts') ? { ...resolved, format: 'module' } : resolved;
}`;

let typescriptLoader: Promise<void> | undefined;

/**
 * Compiled, tiergate loads a TypeScript scenario through tsx, imported when the first one is named:
 * most runs load none. From the sources, what runs tiergate (vitest, tsx) loads TypeScript already.
 */
function loadTypeScript(): Promise<void> {
  return (typescriptLoader ??= (async () => {
    register(`data:text/javascript,${encodeURIComponent(TS_IS_ESM)}`);
    (await import('tsx/esm/api')).register();
  })());
}

async function importDefault(path: string): Promise<unknown> {
  if (COMPILED && TYPESCRIPT.test(path)) await loadTypeScript();
  return ((await import(pathToFileURL(path).href)) as { default?: unknown }).default;
}

export async function loadScenarioFile(file: string, cwd: string): Promise<Scenario> {
  const path = resolve(cwd, file);
  let exported: unknown;
  try {
    exported = await importDefault(path);
  } catch (error) {
    throw new UsageError(`--scenario ${file}: cannot load it (${await loadFailure(path, error)})`, 'TG_SCENARIO');
  }
  const parsed = scenarioShape.safeParse(exported);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((i) => `${i.path.join('.') || '(default export)'}: ${i.message}`)
      .join('; ');
    throw new UsageError(
      `--scenario ${file}: the default export is not a scenario (${problems}); export default defineScenario({...})`,
      'TG_SCENARIO',
    );
  }
  const scenario = parsed.data as Scenario;
  // Thresholds are checked here, so a typo is reported before any traffic, not after the run.
  if (scenario.load) parseThresholds(scenario.load.thresholds, `--scenario ${file}: load.thresholds`);
  return scenario;
}

/** Why a scenario file did not load, in a phrase that points at the fix. */
async function loadFailure(path: string, error: unknown): Promise<string> {
  if (
    !(await access(path).then(
      () => true,
      () => false,
    ))
  )
    return 'file not found';
  const message = messageOf(error);
  // Syntax errors: tsx (esbuild) says `file:line:col: ERROR: text`; vite says `[CODE] text` and `[ file:line:col ]`.
  const clean = message.replace(/\u001b\[[0-9;]*m/g, '');
  const esbuild = /(\S+:\d+:\d+): ERROR: (.*)/.exec(clean);
  if (esbuild) return `${esbuild[2]} at ${esbuild[1]}`;
  const coded = /\[[A-Z_]+\]\s*(.+)/.exec(clean);
  const where = /(\S+\.[cm]?[jt]sx?:\d+:\d+)/.exec(clean);
  if (coded?.[1] && where) return `${coded[1].trim()} at ${where[1]}`;
  if (/require\(\) ES Module|ERR_REQUIRE|Cannot use import statement/.test(message)) {
    return 'it was loaded as CommonJS: name it .mts, or keep it in a package with "type": "module"';
  }
  if (/Cannot find (package|module) 'tiergate'/.test(message))
    return "it imports 'tiergate', which is not installed beside it: npm install tiergate there, or import from a path";
  return message.split('\n')[0] ?? 'unknown error';
}
