/**
 * `tiergate k6 export --declare-headers`: the bundles read the dialect named, a name that is no
 * dialect is one line and exit 2, and the revocation script takes none.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectUsageError, runCli } from '../helpers/cli.ts';

describe('k6 export --declare-headers', () => {
  it('bundles the declared dialect’s fields into each script; without it the scripts read §8’s triple', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tiergate-k6-declare-'));
    const declared = await runCli(
      ['k6', 'export', '--tiers', 'starter', '--out', 'ietf', '--declare-headers', 'ietf'],
      {},
      dir,
    );
    expect(declared.code).toBe(0);
    const code = readFileSync(join(dir, 'ietf', 'starter.js'), 'utf8');
    expect(code).toContain('"ratelimit-policy"');
    expect(code).toMatch(/dialect: "ietf"/);
    await runCli(['k6', 'export', '--tiers', 'starter', '--out', 'spec'], {}, dir);
    expect(readFileSync(join(dir, 'spec', 'starter.js'), 'utf8')).not.toMatch(/dialect: "ietf"/);
  }, 60_000);

  it('refuses a name that is no dialect, and a dialect for the revocation script', async () => {
    expectUsageError(
      await runCli(['k6', 'export', '--out', 'x', '--declare-headers', 'draft-8']),
      /^tiergate: k6 export: --declare-headers draft-8: one of x-ratelimit, ietf, ietf-draft-7, ietf-draft-6/,
    );
    expectUsageError(
      await runCli(['k6', 'operator', '--out', 'x', '--revocation', '--declare-headers', 'ietf']),
      /^tiergate: k6 operator: --declare-headers applies to the tier scripts/,
    );
  });
});
