/**
 * AUTH-KEY-FORMAT (§5.3): every configured key matches one of the contract's key formats.
 * Keys are secrets: only `redactKey(key)` ever appears in a Finding.
 */
import type { Contract, KeyFormat } from '../contract/types.ts';
import { keyFormatOf, redactKey } from '../contract/keys.ts';
import { countOf, finding, listSome } from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';

export interface LabelledKey {
  readonly label: string;
  readonly key: string;
}

/** `data` of AUTH-KEY-FORMAT: each key, redacted, and the environment of the format it matches (null: none). */
export type KeyFormatData = {
  readonly keys: readonly { readonly label: string; readonly key: string; readonly env: KeyFormat['env'] | null }[];
};

export function keyFormatVerdict(keys: readonly LabelledKey[], contract: Contract): Finding<KeyFormatData> {
  const formats = contract.keyFormats.map((f) => `${f.prefix} + ${f.pattern.source}`).join(' or ');
  const expected = `every key is ${formats}`;
  if (keys.length === 0) {
    return finding('inconclusive', { expected, actual: 'no keys were configured', notes: ['nothing to judge'] });
  }

  const rows = keys.map(({ label, key }) => {
    const format = keyFormatOf(contract, key);
    return { label, key: redactKey(key), env: format?.env ?? null, problem: format ? null : whyNot(key, contract) };
  });
  const bad = rows.filter((r) => r.problem !== null);
  const data: KeyFormatData = { keys: rows.map(({ label, key, env }) => ({ label, key, env })) };

  if (bad.length > 0) {
    return finding('fail', {
      expected,
      actual: `${bad.length} of ${keys.length} keys do not match: ${listSome(bad.map((r) => `${r.label} (${r.key}): ${r.problem}`))}`,
      data,
    });
  }
  const envs = [...new Set(rows.map((r) => r.env))].join(', ');
  return finding('pass', { expected, actual: `all ${countOf(keys.length, 'key')} match (${envs})`, data });
}

/** Says what is wrong without revealing the key: which prefix, how long the rest is. */
function whyNot(key: string, contract: Contract): string {
  const format = contract.keyFormats.find((f) => key.startsWith(f.prefix));
  if (!format) {
    return `no known prefix (${contract.keyFormats.map((f) => f.prefix).join(', ')})`;
  }
  const body = key.slice(format.prefix.length);
  const oddChars = /[^A-Za-z0-9]/.test(body) ? ', with non-alphanumeric characters' : '';
  return `the ${body.length} characters after ${format.prefix} do not match ${format.pattern.source}${oddChars}`;
}
