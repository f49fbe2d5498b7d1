/**
 * Reads and validates a config file once, at the boundary, into typed objects. Every problem is
 * reported by path in one message (k6's Validate() []error), and secrets resolve from the environment.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { messageOf, UsageError } from '../util/errors.ts';
import { orgLimitProblems } from '../contract/org-limits.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import { LIMIT_FIELDS, TIER_NAMES, type OrgLimits } from '../contract/types.ts';
import { configSchema, type Config, type EnvRef } from './schema.ts';

export async function loadConfig(file: string, cwd: string): Promise<Config> {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--config ${file}: cannot read the file (${code ?? 'error'}); check the path`, 'TG_CONFIG');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--config ${file}: not valid JSON (${messageOf(error)})`, 'TG_CONFIG');
  }
  return parseConfig(json, file);
}

export function parseConfig(json: unknown, source: string): Config {
  const parsed = configSchema.safeParse(json);
  // Rules across fields are checked on the raw input too, so they are reported with the others.
  const issues = [...(parsed.success ? [] : parsed.error.issues), ...crossFieldIssues(json)];
  if (issues.length > 0 || !parsed.success) throw new UsageError(`${source}: ${describeIssues(issues)}`, 'TG_CONFIG');
  return parsed.data;
}

type IssueLike = Pick<z.core.$ZodIssue, 'path' | 'message'>;

/** "orgs.0.tier: expected one of starter|professional|enterprise; target.edges: required" */
export function describeIssues(issues: readonly IssueLike[]): string {
  return issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(top level)'}: ${issue.message}`)
    .join('; ');
}

const record = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/**
 * Organization names are unique (they label results and lanes), an organization's own limits are
 * acceptable for its tier, and `revocation.org` names one of them. Read defensively: the input may
 * be invalid in every other way.
 */
function crossFieldIssues(json: unknown): IssueLike[] {
  const issues: IssueLike[] = [];
  const root = record(json);
  if (!root) return issues;
  const orgs = Array.isArray(root['orgs']) ? root['orgs'] : [];
  const firstIndex = new Map<string, number>();
  orgs.forEach((org, i) => {
    const name = record(org)?.['name'];
    if (typeof name !== 'string') return;
    const seen = firstIndex.get(name);
    if (seen === undefined) firstIndex.set(name, i);
    else
      issues.push({
        path: ['orgs', i, 'name'],
        message: `${JSON.stringify(name)} is already the name of orgs.${seen}`,
      });
  });
  orgs.forEach((org, i) => issues.push(...limitIssues(record(org), i)));
  const revocationOrg = record(root['revocation'])?.['org'];
  if (typeof revocationOrg === 'string' && !firstIndex.has(revocationOrg)) {
    const known = [...firstIndex.keys()].join(', ') || 'none';
    issues.push({
      path: ['revocation', 'org'],
      message: `${JSON.stringify(revocationOrg)} is not the name of an organization in orgs (${known})`,
    });
  }
  return issues;
}

/** `orgs.N.limits` against the organization's tier; figures that are not whole numbers above 0 the schema reports. */
function limitIssues(org: Record<string, unknown> | null, i: number): IssueLike[] {
  const tier = TIER_NAMES.find((t) => t === org?.['tier']);
  const limits = record(org?.['limits']);
  if (!tier || !limits) return [];
  const declared: Partial<OrgLimits> = Object.fromEntries(
    LIMIT_FIELDS.flatMap((field) => {
      const value = limits[field];
      return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? [[field, value]] : [];
    }),
  );
  return orgLimitProblems(recruitingApi, tier, declared).map((p) => ({
    path: ['orgs', i, 'limits', p.field],
    message: p.message,
  }));
}

/** Resolve a key from the environment; a missing variable names itself and the fix. */
export function resolveSecret(
  ref: EnvRef | string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  where: string,
): string | null {
  if (ref === undefined) return null;
  if (typeof ref === 'string')
    throw new UsageError(`${where}: keys never go in the config file; use {"env": "VARIABLE"}`, 'TG_CONFIG');
  const value = env[ref.env];
  if (value === undefined || value === '') {
    throw new UsageError(`${where}: environment variable ${ref.env} is not set; export it with the key`, 'TG_ENV');
  }
  return value;
}
