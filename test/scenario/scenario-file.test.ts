/** Scenario files load once at the boundary: a valid one types the run; a broken one is one clear line. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../src/scenario/load.ts';

const define = pathToFileURL(join(process.cwd(), 'src/scenario/define.ts')).href;
const dir = mkdtempSync(join(tmpdir(), 'tiergate-scenario-'));
const write = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return name;
};
const failure = (file: string) =>
  loadScenarioFile(file, dir).then(
    () => null,
    (error: { code?: string; message: string }) => error,
  );

describe('scenario files', () => {
  it('loads a copy of a shipped scenario written as .mts', async () => {
    const file = write(
      'mine.mts',
      `import { defineScenario, sustainedLoad } from ${JSON.stringify(define)};\nexport default defineScenario({ tier: 'professional', orgs: 2, load: sustainedLoad({ fleetOrgs: 2 }) });\n`,
    );
    const scenario = await loadScenarioFile(file, dir);
    expect({ tier: scenario.tier, orgs: scenario.orgs, phases: scenario.load?.phases.length }).toEqual({
      tier: 'professional',
      orgs: 2,
      phases: 3,
    });
  });

  it.each([
    [
      'typo.mts',
      `export default { tier: 'starter', description: '', orgs: 2, checks: 'all', quota: { variants: [] }, revocaton: {}, revocation: { trials: 1, intervalMs: 10, settleMs: 0 }, load: null };`,
      /Unrecognized key: "revocaton"/,
    ],
    [
      'endpoint.mts',
      `import { defineScenario } from ${JSON.stringify(define)};\nexport default defineScenario({ tier: 'starter', load: { endpoint: 'nope', phases: [{ name: 'x', rateMultiple: 1, windows: 1, orgs: 1 }], thresholds: {} } });`,
      /load\.endpoint: an endpoint id of the contract/,
    ],
    [
      'threshold.mts',
      `import { defineScenario } from ${JSON.stringify(define)};\nexport default defineScenario({ tier: 'starter', load: { endpoint: 'jobs-list', phases: [{ name: 'x', rateMultiple: 1, windows: 1, orgs: 1 }], thresholds: { http_req_duration: ['p95 < 3'] } } });`,
      /load\.thresholds/,
    ],
    ['syntax.mts', 'export default {{ tier: ;', /cannot load it \(.* at .*:1:\d+\)/],
  ])('%s is a usage error naming the problem', async (name, text, message) => {
    const error = await failure(write(name, text));
    expect(error?.code).toBe('TG_SCENARIO');
    expect(error?.message).toMatch(message);
    expect(error?.message.split('\n')).toHaveLength(1);
  });

  it('a missing file says so', async () => {
    expect((await failure('nowhere.mts'))?.message).toContain('file not found');
  });
});
