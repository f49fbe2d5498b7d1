/** The load driver reads answers as the prober does: a declared policy name first, else the one the tier's profile learned. */
import { expect, it } from 'vitest';
import type { OrgHandle } from '../../src/contract/handles.ts';
import type { SuiteContext } from '../../src/suite/context.ts';
import { loadReader } from '../../src/tasks/load.ts';

it('reads each class by its declared policy, else by the one its tier learned', () => {
  const asked: string[] = [];
  const context = {
    prober: {
      learnedPolicies: (tier: string) => {
        asked.push(tier);
        return { read: 'learned-read', ingest: 'learned-ingest' };
      },
    },
  } as unknown as SuiteContext;
  const org = { tier: 'professional' } as OrgHandle;
  const reader = loadReader({ dialect: 'ietf', policies: { ingest: 'declared-ingest' } }, context, org);
  expect(reader).toEqual({ dialect: 'ietf', policies: { read: 'learned-read', ingest: 'declared-ingest' } });
  expect(asked).toEqual(['professional']);
});
