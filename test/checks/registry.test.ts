/** The check registry and the IDs the lower layers use are written from the check modules, and a stale one fails here. */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECK_IDS } from '../../src/catalogue/types.ts';
import { allChecks } from '../../src/checks/catalogue.ts';
import {
  checkIdsSource,
  checkModulesInOrder,
  registrySource,
  type ModuleFile,
} from '../../src/checks/registry-source.ts';
import { listedNames } from '../../src/util/generated-list.ts';
import { isNotReplayed, isReplayable, mayDecide, NOT_REPLAYED, REPLAYABLE } from '../../src/checks/verdict-table.ts';

const checksDir = new URL('../../src/checks/', import.meta.url);
const read = (url: URL) => readFileSync(url, 'utf8');
const files: ModuleFile[] = readdirSync(checksDir).map((file) => ({ file, source: read(new URL(file, checksDir)) }));
const registry = read(new URL('registry.ts', checksDir));

const moduleFile = (id: string, file = `${id.toLowerCase()}.ts`): ModuleFile => ({
  file,
  source: `import { defineCheck } from './define.ts';\n\nexport const check = defineCheck({\n  id: '${id}',\n});\n`,
});

describe('the check registry', () => {
  it('is the one the check modules write (if this fails: npm run generate)', () => {
    const modules = checkModulesInOrder(files, registry);
    expect(registrySource(modules)).toBe(registry);
    expect(checkIdsSource(modules)).toBe(read(new URL('../catalogue/check-ids.ts', checksDir)));
  });

  it('lists every module in src/checks/ that declares a check, and nothing else', () => {
    const declaring = files.filter((f) => /^export const check = defineCheck\(/m.test(f.source)).map((f) => f.file);
    expect(
      checkModulesInOrder(files, registry)
        .map((m) => m.file)
        .sort(),
    ).toEqual(declaring.sort());
    expect(listedNames(registry)).toHaveLength(declaring.length);
    expect(allChecks().map((c) => c.id)).toEqual([...CHECK_IDS]);
  });

  it('keeps the catalogue order: a new check goes last, a removed one goes', () => {
    const previous = registrySource([
      ...checkModulesInOrder([moduleFile('B-CHECK'), moduleFile('A-CHECK')], '  bCheck,\n'),
    ]);
    expect(listedNames(previous)).toEqual(['bCheck', 'aCheck']);
    const next = checkModulesInOrder([moduleFile('A-CHECK'), moduleFile('C-CHECK'), moduleFile('B-CHECK')], previous);
    expect(next.map((m) => m.file)).toEqual(['b-check.ts', 'a-check.ts', 'c-check.ts']);
    expect(checkModulesInOrder([moduleFile('A-CHECK')], previous).map((m) => m.file)).toEqual(['a-check.ts']);
    expect(checkIdsSource(next)).toContain("'B-CHECK',\n  'A-CHECK',\n  'C-CHECK',");
  });

  it('names a module that declares no ID', () => {
    const noId = { file: 'broken.ts', source: 'export const check = defineCheck({\n  title: "x",\n});\n' };
    expect(() => checkModulesInOrder([noId], '')).toThrow('src/checks/broken.ts declares no check id');
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
