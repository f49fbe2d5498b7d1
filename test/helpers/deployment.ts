/**
 * A deployment as a first run meets it: the config `tiergate init` writes for a reference target's
 * edges (starter organizations a and b, three keys each), in a folder of its own, and the
 * environment holding each key it names, provisioned through the target's admin API.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { starterConfig, type StarterKey } from '../../src/config/init.ts';
import { SCOPE_NAMES } from '../../src/contract/types.ts';
import type { TestTarget } from './target.ts';

export const CONFIG_FILE = 'tiergate.config.json';

export interface Deployment {
  /** Holds tiergate.config.json; removed after the test. */
  readonly dir: string;
  /** Every variable the file names, holding its key. */
  readonly env: Record<string, string>;
  readonly keys: readonly StarterKey[];
  /** The target's id of each organization, by its name in the file. */
  readonly orgIds: Readonly<Record<string, string>>;
}

/** Organizations of their own each time, so tests on one target never share a quota. */
let made = 0;

export async function initDeployment(t: TestTarget, extraEdges: readonly string[] = []): Promise<Deployment> {
  const dir = mkdtempSync(join(tmpdir(), 'tiergate-deployment-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, CONFIG_FILE);
  const starter = starterConfig({
    file,
    edges: [...t.target.edges, ...extraEdges],
    allowNonLoopback: false,
    orgs: [
      { name: 'starter-a', tier: 'starter' },
      { name: 'starter-b', tier: 'starter' },
    ],
  });
  writeFileSync(file, starter.text);
  const orgIds: Record<string, string> = {};
  for (const name of ['starter-a', 'starter-b'])
    orgIds[name] = (await t.admin.createOrg('starter', `${name}-${++made}`)).id;
  const env: Record<string, string> = {};
  for (const k of starter.keys)
    env[k.env] = (await t.admin.createKey(orgIds[k.org]!, k.role === 'unscoped' ? [] : SCOPE_NAMES, 'test')).key;
  return { dir, env, keys: starter.keys, orgIds };
}

/** The variable holding `role`'s key of `org`. */
export function variableOf(deployment: Deployment, org: string, role: StarterKey['role']): string {
  return deployment.keys.find((k) => k.org === org && k.role === role)!.env;
}

/** A loopback URL nothing listens on: a port just given back. */
export async function closedEdge(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
