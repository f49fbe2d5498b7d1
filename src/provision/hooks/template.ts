/**
 * Hook templates: `{key}`, `{keyId}` and `{env:NAME}` placeholders in URLs, headers, bodies and
 * commands. Templates are checked once against the environment (a UsageError names the config
 * path), then filled per call. Only exactly these three forms are placeholders, so JSON braces in
 * a body template are left alone.
 */
import { UsageError } from '../../util/errors.ts';

const PLACEHOLDER = /\{(key|keyId|env:[A-Za-z_][A-Za-z0-9_]*)\}/g;

export type KeyPlaceholder = 'key' | 'keyId';

export interface TemplateValues {
  readonly key?: string;
  readonly keyId?: string | null;
}

export type Env = Readonly<Record<string, string | undefined>>;

/** The placeholders a template uses: 'key', 'keyId', 'env:NAME'. */
export function placeholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

/** Every string inside a JSON-like value (a body template). */
export function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsOf);
  return [];
}

/**
 * Problems with a template at `path`: an unset environment variable, or a key placeholder that
 * the call cannot know (`{key}` when provisioning). Returned, not thrown, so all are reported at once.
 */
export function templateProblems(template: string, path: string, env: Env, known: readonly KeyPlaceholder[]): string[] {
  const problems: string[] = [];
  for (const name of placeholders(template)) {
    if (name.startsWith('env:')) {
      const variable = name.slice(4);
      if (env[variable] === undefined || env[variable] === '') {
        problems.push(`${path}: environment variable ${variable} (in {${name}}) is not set`);
      }
    } else if (!known.includes(name as KeyPlaceholder)) {
      problems.push(
        `${path}: {${name}} is not known here${name === 'key' || name === 'keyId' ? ' (no key exists yet when provisioning)' : ''}`,
      );
    }
  }
  return problems;
}

/** Throws one UsageError listing every problem, or returns. */
export function assertNoProblems(problems: readonly string[]): void {
  if (problems.length > 0) throw new UsageError(problems.join('; '), 'TG_CONFIG');
}

/**
 * Fills a template. `quote` transforms each substituted value (shell quoting for commands).
 * A `{keyId}` the key does not have is an error naming the fix.
 */
export function fillTemplate(
  template: string,
  values: TemplateValues,
  env: Env,
  quote: (value: string) => string = (v) => v,
): string {
  return template.replace(PLACEHOLDER, (_, name: string) => {
    if (name === 'key') {
      if (values.key === undefined) throw new Error('{key} is not known when provisioning');
      return quote(values.key);
    }
    if (name === 'keyId') {
      if (values.keyId === undefined || values.keyId === null) {
        throw new Error(
          'the template needs {keyId}, but the key has no id (give keyIdPath, print the id after the key, or give "id" with each disposable key)',
        );
      }
      return quote(values.keyId);
    }
    const value = env[name.slice(4)];
    if (value === undefined) throw new Error(`environment variable ${name.slice(4)} is not set`);
    return quote(value);
  });
}

/** Fills every string of a JSON-like body template. */
export function fillJson(value: unknown, values: TemplateValues, env: Env): unknown {
  if (typeof value === 'string') return fillTemplate(value, values, env);
  if (Array.isArray(value)) return value.map((v) => fillJson(v, values, env));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillJson(v, values, env)]));
  }
  return value;
}

/** The secrets a template would reveal once filled: the values of the variables it names. */
export function envSecrets(templates: readonly string[], env: Env): string[] {
  const names = new Set(
    templates
      .flatMap(placeholders)
      .filter((p) => p.startsWith('env:'))
      .map((p) => p.slice(4)),
  );
  return [...names].flatMap((name) => (env[name] ? [env[name]] : []));
}

const SHELL_SAFE = /^[A-Za-z0-9_.:@/+=,%-]+$/;

/**
 * Values that need no quoting go in as they are (so `{key}` and `"{key}"` both work); anything else
 * is single-quoted, so a value can never inject shell syntax.
 */
export function shellQuote(value: string): string {
  if (SHELL_SAFE.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
