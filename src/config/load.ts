/**
 * Reads and validates a config file once, at the boundary, into typed objects. Every problem is
 * reported by path in one message (k6's Validate() []error), and secrets resolve from the environment.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { UsageError } from '../errors.ts';
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
    throw new UsageError(`--config ${file}: not valid JSON (${(error as Error).message})`, 'TG_CONFIG');
  }
  return parseConfig(json, file);
}

export function parseConfig(json: unknown, source: string): Config {
  const parsed = configSchema.safeParse(json);
  if (!parsed.success) throw new UsageError(`${source}: ${describeIssues(parsed.error.issues)}`, 'TG_CONFIG');
  return parsed.data;
}

/** "orgs.0.tier: expected one of starter|professional|enterprise; target.edges: required" */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(top level)'}: ${issue.message}`)
    .join('; ');
}

/** Resolve a key from the environment; a missing variable names itself and the fix. */
export function resolveSecret(ref: EnvRef | string | undefined, env: Readonly<Record<string, string | undefined>>, where: string): string | null {
  if (ref === undefined) return null;
  if (typeof ref === 'string') throw new UsageError(`${where}: keys never go in the config file; use {"env": "VARIABLE"}`, 'TG_CONFIG');
  const value = env[ref.env];
  if (value === undefined || value === '') {
    throw new UsageError(`${where}: environment variable ${ref.env} is not set; export it with the key`, 'TG_ENV');
  }
  return value;
}
