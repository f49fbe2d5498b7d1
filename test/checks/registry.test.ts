/** The check registry and the IDs the lower layers use are written from the check modules, and a stale one fails here. */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECK_IDS } from '../../src/catalogue/types.ts';
import { allChecks } from '../../src/checks/catalogue.ts';
import { checkIdsSource, checkModulesInOrder, registrySource } from '../../src/checks/registry-source.ts';
import { listedNames, moduleExports, type ModuleExport } from '../../src/util/generated-list.ts';
import { isNotReplayed, isReplayable, mayDecide, NOT_REPLAYED, REPLAYABLE } from '../../src/checks/verdict-table.ts';

const checksDir = new URL('../../src/checks/', import.meta.url);
const read = (url: URL) => readFileSync(url, 'utf8');
const registry = read(new URL('registry.ts', checksDir));
const exports = await moduleExports(checksDir);

/** A module's export as importing it gives it: a check declared `id`, or anything else. */
const declared = (id: string, name = 'check'): ModuleExport => ({
  file: `${id.toLowerCase()}.ts`,
  name,
  value: { id, verdict: { name: 'v', load: async () => () => null } },
});

describe('the check registry', () => {
  it('is the one the check modules write (if this fails: npm run generate)', () => {
    const modules = checkModulesInOrder(exports, registry);
    expect(registrySource(modules)).toBe(registry);
    expect(checkIdsSource(modules)).toBe(read(new URL('../catalogue/check-ids.ts', checksDir)));
  });

  it('lists every module in src/checks/ that exports a check, and nothing else', () => {
    const files = readdirSync(checksDir).filter((f) => f.endsWith('.ts'));
    const listed = checkModulesInOrder(exports, registry).map((m) => m.file);
    expect(listed).toHaveLength(allChecks().length);
    expect(files.filter((f) => !listed.includes(f)).sort()).toEqual([
      'catalogue.ts',
      'check-table.ts',
      'define.ts',
      'generate-check-table.ts',
      'generate-registry.ts',
      'registry-source.ts',
      'registry.ts',
      'result.ts',
      'verdict-table.ts',
    ]);
    expect(allChecks().map((c) => c.id)).toEqual([...CHECK_IDS]);
  });

  it('keeps the catalogue order: a new check goes last, a removed one goes', () => {
    const previous = registrySource(checkModulesInOrder([declared('B-CHECK'), declared('A-CHECK')], '  bCheck,\n'));
    expect(listedNames(previous)).toEqual(['bCheck', 'aCheck']);
    const next = checkModulesInOrder([declared('A-CHECK'), declared('C-CHECK'), declared('B-CHECK')], previous);
    expect(next.map((m) => m.file)).toEqual(['b-check.ts', 'a-check.ts', 'c-check.ts']);
    expect(checkModulesInOrder([declared('A-CHECK')], previous).map((m) => m.file)).toEqual(['a-check.ts']);
    expect(checkIdsSource(next)).toContain("'B-CHECK',\n  'A-CHECK',\n  'C-CHECK',");
  });

  it('names a module that exports its check under another name, which the registry would miss', () => {
    const other: ModuleExport = { file: 'define.ts', name: 'defineCheck', value: () => null };
    expect(checkModulesInOrder([other, declared('A-CHECK')], '').map((m) => m.literal)).toEqual(['A-CHECK']);
    expect(() => checkModulesInOrder([declared('A-CHECK', 'aCheck')], '')).toThrow(
      'src/checks/a-check.ts exports a check as aCheck: export it as check',
    );
  });
});

describe('the verdict table made from the check modules', () => {
  it('gives every check its verdict function, loaded, judged again unless its module says why not', async () => {
    for (const check of allChecks()) {
      if ('notJudgedAgain' in check) {
        expect(isReplayable(check.verdict.name), check.id).toBe(false);
        expect(NOT_REPLAYED[check.verdict.name]).toBe(check.notJudgedAgain);
      } else {
        expect(REPLAYABLE[check.verdict.name], check.id).toBe(await check.verdict.load());
        expect(isNotReplayed(check.verdict.name), check.id).toBe(false);
      }
    }
    expect(isReplayable('keyFormatVerdict')).toBe(false);
    expect(isNotReplayed('procedure')).toBe(true);
  });

  it('lets a result rest only on its own check’s verdict, or on the procedure when undecided', () => {
    expect(mayDecide('quotaExactVerdict', 'QUOTA-READ', 'pass')).toBe(true);
    expect(mayDecide('quotaExactVerdict', 'QUOTA-INGEST', 'fail')).toBe(true);
    expect(mayDecide('authRejected', 'QUOTA-READ', 'pass')).toBe(false);
    expect(mayDecide('procedure', 'QUOTA-READ', 'inconclusive')).toBe(true);
    expect(mayDecide('procedure', 'QUOTA-READ', 'pass')).toBe(false);
    expect(mayDecide('toString', 'QUOTA-READ', 'pass')).toBe(false);
  });
});
