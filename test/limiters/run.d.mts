/** Types of what run.mjs exports, for the TypeScript test that drives it (test/e2e/real-limiters.test.ts). */
import type { ChildProcess } from 'node:child_process';

export type TierName = 'starter' | 'professional';
export type KeyRole = 'primary' | 'secondary' | 'unscoped';

export interface ServerSpec {
  readonly file: string;
  readonly args: readonly string[];
  readonly what: string;
}
export declare const SERVERS: Readonly<Record<string, ServerSpec>>;

/** One org as the server's keys file lists it (plain keys: hold them in memory only). */
export interface ServerOrg {
  readonly name: string;
  readonly tier: TierName;
  readonly id: string;
  readonly keys: Readonly<Record<KeyRole, string>>;
}

export interface LogSink {
  write(chunk: string | Uint8Array): unknown;
}

export interface StartOptions {
  readonly tiers: readonly TierName[];
  readonly windowS: number;
  readonly log?: LogSink | null;
  readonly extra?: readonly string[];
}

export interface RunningServer {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

export declare function envName(org: string, role: KeyRole): string;
export declare function startServer(name: string, options: StartOptions & { readonly keysFile: string }): Promise<RunningServer>;
export declare function startWithKeys(name: string, options: StartOptions): Promise<RunningServer & { readonly orgs: readonly ServerOrg[] }>;
/** The config as plain JSON (tiergate's parseConfig validates it) and the environment holding the keys. */
export declare function buildConfig(
  url: string,
  orgs: readonly ServerOrg[],
  windowS: number,
  assumptions?: Readonly<Record<string, boolean>> | null,
): { config: Record<string, unknown>; env: Record<string, string> };
export declare function writeConfig(
  file: string,
  url: string,
  orgs: readonly ServerOrg[],
  windowS: number,
  assumptions?: Readonly<Record<string, boolean>> | null,
): Record<string, string>;
export declare function printResults(results: unknown, options?: { readonly width?: number }): string;
