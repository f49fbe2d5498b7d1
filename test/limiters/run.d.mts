/** Types of what run.mjs exports, for the TypeScript test that drives it (test/e2e/real-limiters.test.ts). */
import type { ChildProcess } from 'node:child_process';
import type { FlakyProxy } from './lib/flaky-proxy.ts';

export type TierName = 'starter' | 'professional' | 'enterprise';
export type KeyRole = 'primary' | 'secondary' | 'unscoped';

/** A deployment's shape: edges, upload times, limiter store. */
export interface Shape {
  readonly edges: number;
  /** A single upload's time; null: the server's default (200 ms). */
  readonly parseMs: number | null;
  /** How long a bulk upload is held before its 202; 'parse' (entries only): as long as a single upload. */
  readonly bulkParseMs: number | 'parse';
  readonly store: 'memory' | 'redis';
  /** express-rate-limit.mjs's --headers mode; null: the entry's own (express-rate-limit servers only). */
  readonly headers: HeaderMode | null;
}

/** express-rate-limit.mjs's --headers: legacy (X-RateLimit-* + draft 6), one draft alone, or none. */
export type HeaderMode = 'legacy' | 'draft-6' | 'draft-7' | 'draft-8' | 'none';
export declare const HEADER_MODES: readonly HeaderMode[];

export interface ServerSpec {
  readonly file: string;
  readonly args: readonly string[];
  readonly what: string;
  readonly shape?: Partial<Shape>;
}
export declare const SERVERS: Readonly<Record<string, ServerSpec>>;

/** One org as the server's keys file lists it (plain keys: hold them in memory only). */
export interface ServerOrg {
  readonly name: string;
  readonly tier: TierName;
  readonly id: string;
  /** The figures the org is served (per window). */
  readonly limits: Readonly<{ read: number; ingest: number; concurrency: number }>;
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
  /** Overrides of the runner entry's shape (undefined fields keep it). */
  readonly shape?: Partial<Omit<Shape, 'bulkParseMs'>> & { readonly bulkParseMs?: number };
  /** For shape.store 'redis': the redis-server to use (lib/redis-server.mjs startRedis). */
  readonly redisUrl?: string | null;
}

export interface RunningServer {
  /** Edge 0. */
  readonly url: string;
  /** Every edge, edge 0 first. */
  readonly urls: readonly string[];
  readonly shape: Shape & { readonly bulkParseMs: number };
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

export interface FlakyOptions {
  /** About one request in N dropped unanswered; 0: none. */
  readonly dropOneIn: number;
  readonly seed?: number;
  readonly dropAt?: 'request' | 'response';
  readonly how?: 'reset' | 'close';
  /** A round trip every chunk pays, half each way (lib/flaky-proxy.ts), and how much it varies. */
  readonly latencyMs?: number;
  readonly jitterMs?: number;
}

export declare function envName(org: string, role: KeyRole): string;
export declare function startServer(
  name: string,
  options: StartOptions & { readonly keysFile: string },
): Promise<RunningServer>;
export declare function startWithKeys(
  name: string,
  options: StartOptions,
): Promise<RunningServer & { readonly orgs: readonly ServerOrg[] }>;
export declare function resolveShape(
  name: string,
  overrides?: StartOptions['shape'],
): Shape & { readonly bulkParseMs: number };
/** A flaky proxy in front of each edge (seed + i for edge i), at a distance with latencyMs. */
export declare function startProxies(edges: readonly string[], options: FlakyOptions): Promise<FlakyProxy[]>;
export declare function describeDrops(proxies: readonly FlakyProxy[]): string[];
/** The config as plain JSON (tiergate's parseConfig validates it) and the environment holding the keys; `edges`: one URL or every edge's. */
export declare function buildConfig(
  edges: string | readonly string[],
  orgs: readonly ServerOrg[],
  windowS: number,
  assumptions?: Readonly<Record<string, boolean>> | null,
): { config: Record<string, unknown>; env: Record<string, string> };
export declare function writeConfig(
  file: string,
  edges: string | readonly string[],
  orgs: readonly ServerOrg[],
  windowS: number,
  assumptions?: Readonly<Record<string, boolean>> | null,
): Record<string, string>;
export declare function printResults(results: unknown, options?: { readonly width?: number }): string;
