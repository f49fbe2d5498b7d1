/** Types of redis-server.mjs. */
export declare const REDIS_MISSING: string;
/** null when redis-server can be started here, else the reason. */
export declare function redisUnavailable(): string | null;
export declare function startRedis(options?: {
  readonly log?: { write(chunk: string | Uint8Array): unknown } | null;
}): Promise<
  | { readonly url: string; stop(): Promise<void>; readonly reason?: undefined }
  | { readonly url: null; readonly reason: string; readonly stop?: undefined }
>;
