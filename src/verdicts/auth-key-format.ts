/**
 * AUTH-KEY-FORMAT (§5.3): every configured key matches one of the contract's key formats.
 * Keys are secrets: only `redactKey(key)` ever appears in a Finding.
 */
import type { Contract, KeyFormat } from '../contract/types.ts';
import { keyFormatOf, redactKey } from '../contract/keys.ts';
import { countOf, finding, listSome, atLeastOne } from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';
import { because, reasonText, type Reason } from '../catalogue/reasons/index.ts';

export interface LabelledKey {
  readonly label: string;
  readonly key: string;
}

/** A key format of the contract as the data records it: its prefix, and the pattern of what follows it. */
type FormatShown = { readonly prefix: string; readonly pattern: string };

/** `data` of AUTH-KEY-FORMAT: the formats judged by; each key, redacted, and the environment of the format it matches (null: none). */
export type KeyFormatData = {
  readonly formats: readonly FormatShown[];
  readonly keys: readonly { readonly label: string; readonly key: string; readonly env: KeyFormat['env'] | null }[];
};

export function keyFormatVerdict(keys: readonly LabelledKey[], contract: Contract): Finding<KeyFormatData> {
  const formats = contract.keyFormats.map((f) => ({ prefix: f.prefix, pattern: f.pattern.source }));
  const expected = `every key is ${formats.map((f) => `${f.prefix} + ${f.pattern}`).join(' or ')}`;
  if (keys.length === 0) {
    const none = because('no-keys-configured', {});
    return finding('inconclusive', {
      expected,
      actual: reasonText(none),
      reasons: [none],
      data: { formats, keys: [] },
    });
  }

  const rows = keys.map(({ label, key }) => {
    const format = keyFormatOf(contract, key);
    return {
      label,
      key: redactKey(key),
      env: format?.env ?? null,
      problem: format ? null : whyNot(label, key, contract),
    };
  });
  const problems = rows.map((r) => r.problem).filter((p): p is Reason => p !== null);
  const data: KeyFormatData = { formats, keys: rows.map(({ label, key, env }) => ({ label, key, env })) };

  if (problems.length > 0) {
    return finding('fail', {
      expected,
      actual: `${problems.length} of ${keys.length} keys do not match: ${listSome(problems.map(reasonText))}`,
      reasons: atLeastOne(problems),
      data,
    });
  }
  const envs = [...new Set(rows.map((r) => r.env))].join(', ');
  return finding('pass', { expected, actual: `all ${countOf(keys.length, 'key')} match (${envs})`, data });
}

/** Says what is wrong without revealing the key: which prefix, how long the rest is. */
function whyNot(label: string, key: string, contract: Contract): Reason {
  const redacted = redactKey(key);
  const format = contract.keyFormats.find((f) => key.startsWith(f.prefix));
  if (!format) {
    return because('key-prefix-unknown', { label, key: redacted, prefixes: contract.keyFormats.map((f) => f.prefix) });
  }
  const body = key.slice(format.prefix.length);
  return because('key-body-mismatch', {
    label,
    key: redacted,
    prefix: format.prefix,
    length: body.length,
    pattern: format.pattern.source,
    nonAlphanumeric: /[^A-Za-z0-9]/.test(body),
  });
}
